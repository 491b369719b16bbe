// Every endpoint the server offers.
import type { Endpoint } from '../endpoint.js';
import { fetchApiKey } from './auth.js';
import { deleteQueue, getEvents, register } from './events.js';
import { serverSettings } from './server.js';
import { getOwnUser } from './users.js';

export const endpoints: Endpoint[] = [
  serverSettings,
  fetchApiKey,
  getOwnUser,
  register,
  getEvents,
  deleteQueue,
];
