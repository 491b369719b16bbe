// The register snapshot: one section per event type, run for the types a client fetches. Each domain adds
// its sections here with one spread line.
import { channelSections } from './channels.js';
import { botSections } from './bots.js';
import { coreSections } from './core.js';
import { defaultSections } from './defaults.js';
import { draftsSections } from './drafts.js';
import { filesSections } from './files.js';
import { legacySections } from './legacy.js';
import { messageSections } from './messages.js';
import { peopleSections } from './people.js';
import { realmAdminSections } from './realm-admin.js';
import type { Section, SnapshotContext, SnapshotSources } from './types.js';

export const snapshotSections: Record<string, Section<keyof SnapshotSources>> = {
  // First: a domain's own section replaces the default of a feature it builds.
  ...defaultSections,
  ...coreSections,
  ...channelSections,
  ...draftsSections,
  ...filesSections,
  ...messageSections,
  ...peopleSections,
  ...realmAdminSections,
  ...botSections,
  ...legacySections,
  // The reference documents the channel folders section under both names.
  channel_folders: channelSections.channel_folder!,
};

/** Runs the sections for `types` (every section when null); unknown types are ignored. */
export async function buildSnapshot(ctx: SnapshotContext<keyof SnapshotSources>, types: string[] | null): Promise<Record<string, unknown>> {
  // Own keys only: a type such as `constructor` must not reach Object.prototype's members.
  const wanted = types === null ? Object.keys(snapshotSections) : types.filter((t) => Object.hasOwn(snapshotSections, t));
  // A section known by two names (navigation_view, navigation_views) runs once. The sections run side by side, so
  // their database reads overlap instead of queueing one round trip after another; their fields are put together in
  // the sections' order.
  const parts = await Promise.all([...new Set(wanted.map((t) => snapshotSections[t]!))].map((section) => section(ctx)));
  return Object.assign({}, ...parts) as Record<string, unknown>;
}
