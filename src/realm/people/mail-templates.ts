// The texts of the emails the server sends.
import type { User } from '../../model/realm.js';

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

/**
 * An email invitation (POST /invites, resent by POST /invites/{id}/resend). The expiry is told in whole days rounded
 * up, as the reference's days_to_expire; an invitation that never expires says nothing of it.
 */
export function invitationMail(
  inv: { to: string; realmName: string; referrer: Pick<User, 'fullName' | 'email'>; link: string; expiresInMinutes: number | null },
): MailContent {
  const lines = [
    'Hi there,',
    '',
    `${inv.referrer.fullName} (${inv.referrer.email}) wants you to join them in ${inv.realmName}.`,
    '',
    'To get started, open this link:',
    '',
    inv.link,
  ];
  if (inv.expiresInMinutes !== null) {
    const days = Math.max(1, Math.ceil(inv.expiresInMinutes / (24 * 60)));
    lines.push('', `This invitation expires in ${days} ${days === 1 ? 'day' : 'days'}.`);
  }
  return { to: inv.to, subject: `${inv.referrer.fullName} invited you to join ${inv.realmName}`, body: lines.join('\n') + '\n' };
}

/** Sent when someone gives their address on an invitation link's page: the account is made once they follow it. */
export function signupConfirmation(realmName: string, to: string, confirmUrl: string, validHours: number): MailContent {
  const lines = [
    'Hello,',
    '',
    `You recently signed up to join ${realmName}. To confirm that this is your email address and complete`,
    'your registration, open this link:',
    '',
    confirmUrl,
    '',
    `The link works once, for ${validHours} hours. If you did not sign up, you can ignore this email.`,
  ];
  return { to, subject: `Activate your account on ${realmName}`, body: lines.join('\n') + '\n' };
}
