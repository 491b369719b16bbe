// GET /calls/bigbluebutton/create: a BigBlueButton meeting link. No BigBlueButton server can be configured here,
// so it answers as the reference does without one.
import { endpoint } from '../endpoint.js';
import { errors } from '../../errors.js';
import { bool, optional, required, str } from '../../params.js';

export const createBigBlueButtonCall = endpoint({
  method: 'GET',
  path: '/calls/bigbluebutton/create',
  auth: 'user',
  params: { meeting_name: required(str({ maxLength: 1000 })), voice_only: optional(bool()) },
  handle() {
    throw errors.bigBlueButtonNotConfigured();
  },
});
