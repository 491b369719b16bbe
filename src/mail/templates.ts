// The texts of the emails the server sends.
import type { User } from '../realm/types.js';

export interface MailContent {
  to: string;
  subject: string;
  body: string;
}

/** Sent when an administrator deactivates an account and asked for a notification (the comment, when non-empty). */
export function deactivationNotice(realmName: string, user: User, comment: string): MailContent {
  const lines = [
    `Hello ${user.fullName},`,
    '',
    `Your account ${user.email} on ${realmName} has been deactivated by an organization administrator.`,
    'You will no longer be able to log in or use the API with this account.',
  ];
  if (comment !== '') lines.push('', 'The administrator provided the following comment:', '', comment);
  return { to: user.email, subject: `Notification of account deactivation on ${realmName}`, body: lines.join('\n') + '\n' };
}
