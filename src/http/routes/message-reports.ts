// POST /messages/{message_id}/report: report a message to the realm's moderation request channel.
import { accessMessage } from '../../realm/access/messages.js';
import { MAX_REPORT_DESCRIPTION_LENGTH, moderationChannel, REPORT_REASONS, type ReportType } from '../../realm/messages/report.js';
import { endpoint } from '../endpoint.js';
import { errors } from '../../errors.js';
import { enumOf, int, required, str, withDefault } from '../../params.js';
import { requestRealmUrl } from '../context.js';

export const reportMessage = endpoint({
  method: 'POST',
  path: '/messages/{message_id}/report',
  auth: 'user',
  params: {
    message_id: required(int()),
    report_type: required(enumOf(Object.keys(REPORT_REASONS) as ReportType[])),
    description: withDefault(str({ maxLength: MAX_REPORT_DESCRIPTION_LENGTH }), ''),
  },
  async handle(ctx, p) {
    // The reference's order: the explanation, then whether reporting is on, then the message.
    if (p.report_type === 'other' && p.description === '') throw errors.reportNeedsExplanation();
    moderationChannel(ctx.realm.state);
    const { message } = await accessMessage(ctx.services.db, ctx.realm.state, ctx.user, p.message_id);
    await ctx.realm.dispatch('messages.report', {
      userId: ctx.user.id,
      message,
      reportType: p.report_type,
      description: p.description,
      realmUrl: requestRealmUrl(ctx),
    });
    return {};
  },
});
