// Running the organization: its settings, email domains, icon and logos, and deactivation.
import { brandingCommands } from './branding.js';
import { domainCommands } from './domains.js';
import { realmAdminCommands } from './realm.commands.js';

export const adminCommands = { ...realmAdminCommands, ...domainCommands, ...brandingCommands };
