// Fixture users, channels and messages for narrow tests, and a resolver over them.
import type { NarrowMessage, NarrowResolver, WithConversation } from '../../src/narrow/index.js';

export const VIEWER = { id: 1 };

export const USERS = [
  { id: 1, email: 'iago@example.com' },
  { id: 2, email: 'hamlet@example.com' },
  { id: 3, email: 'othello@example.com' },
  { id: 4, email: 'cordelia@example.com' },
  { id: 5, email: 'prospero@example.com' },
];

export const CHANNELS = [
  { id: 10, name: 'Denmark', isPublic: true },
  { id: 11, name: 'Verona', isPublic: true },
  { id: 12, name: 'Secret', isPublic: false },
];

type Extra = Partial<Omit<NarrowMessage, 'id' | 'flags'>> & { flags?: string[] };

function channelMsg(id: number, channelId: number, topic: string, senderId: number, content: string, rendered: string, x: Extra = {}): NarrowMessage {
  return base(id, { kind: 'stream', channelId, topic, senderId, content, renderedContent: rendered, ...x });
}

function directMsg(id: number, recipients: number[], senderId: number, content: string, x: Extra = {}): NarrowMessage {
  const rendered = `<p>${content}</p>`;
  return base(id, { kind: 'direct', directRecipients: recipients, senderId, content, renderedContent: rendered, ...x });
}

function base(id: number, x: Extra): NarrowMessage {
  const channel = CHANNELS.find((c) => c.id === x.channelId);
  return {
    id,
    senderId: x.senderId ?? 1,
    kind: x.kind ?? 'stream',
    channelId: x.channelId ?? null,
    topic: x.topic ?? '',
    directRecipients: x.directRecipients ?? [],
    content: x.content ?? '',
    renderedContent: x.renderedContent ?? '',
    flags: new Set(x.flags ?? ['read']),
    hasLink: x.hasLink ?? false,
    hasAttachment: x.hasAttachment ?? false,
    hasImage: x.hasImage ?? false,
    hasReaction: x.hasReaction ?? false,
    channelIsPublic: channel?.isPublic ?? false,
    topicIsFollowed: x.topicIsFollowed ?? false,
    topicIsMuted: x.topicIsMuted ?? false,
  };
}

export const MESSAGES: NarrowMessage[] = [
  channelMsg(101, 10, 'greetings', 2, 'Hello world', '<p>Hello world</p>'),
  channelMsg(102, 10, '✔ fixed bug', 1, 'The bug is fixed, see https://example.com',
    '<p>The bug is fixed, see <a href="https://example.com">https://example.com</a></p>',
    { flags: ['read', 'starred'], hasLink: true }),
  channelMsg(103, 11, 'GREETINGS', 3, 'hello again @**iago**',
    '<p>hello again <span class="user-mention" data-user-id="1">@iago</span></p>', { flags: ['mentioned'] }),
  channelMsg(104, 12, '', 4, 'x-ray results attached', '<p>x-ray results attached</p>',
    { hasAttachment: true, hasImage: true, topicIsMuted: true }),
  channelMsg(105, 11, 'plans', 2, 'Meeting about café plans', '<p>Meeting about café plans</p>',
    { flags: ['read', 'has_alert_word'], hasReaction: true, topicIsFollowed: true }),
  channelMsg(106, 10, 'plans', 5, 'Everyone: plan the "big launch" <now>',
    '<p>Everyone: plan the &quot;big launch&quot; &lt;now&gt;</p>', { flags: ['read', 'stream_wildcard_mentioned'] }),
  directMsg(107, [1, 2], 2, 'secret handshake', { flags: [] }),
  directMsg(108, [1, 2], 1, 'reply handshake'),
  directMsg(109, [1, 2, 3], 3, 'group chat about bugs', { flags: ['read', 'topic_wildcard_mentioned'] }),
  directMsg(110, [1], 1, 'note to self'),
  directMsg(111, [1, 3], 3, 'Othello here: naïve ÉCOLE e.mail@foo.com', { flags: [], hasReaction: true, hasLink: true }),
  channelMsg(112, 11, 'Plans', 5, '**bold** statement', '<p><strong>bold</strong> statement</p>', { topicIsMuted: true }),
  channelMsg(113, 10, 'greetings', 3, 'foo_bar baz-qux', '<p>foo_bar baz-qux</p>', { flags: [] }),
  directMsg(114, [1, 3, 4], 4, 'another group'),
];

/** The conversation of a message, as a server would answer the `with` hook. */
export function conversationOf(m: NarrowMessage): WithConversation {
  return m.kind === 'stream' ? { kind: 'stream', channelId: m.channelId!, topic: m.topic } : { kind: 'direct', userIds: m.directRecipients };
}

/** Names are case-insensitive, as in Zulip; numbers are IDs. */
export function makeResolver(messages: readonly NarrowMessage[] = MESSAGES): NarrowResolver {
  return {
    channelByNameOrId: (x) =>
      CHANNELS.find((c) => (typeof x === 'number' ? c.id === x : c.name.toLowerCase() === x.toLowerCase())),
    userByEmailOrId: (x) => USERS.find((u) => (typeof x === 'number' ? u.id === x : u.email === x.toLowerCase())),
    conversationOfMessage: (id) => {
      const m = messages.find((msg) => msg.id === id);
      return m && conversationOf(m);
    },
    // Verona is the web-public one.
    webPublicChannelIds: () => [11],
  };
}

export const ALL_IDS = MESSAGES.map((m) => m.id);
export const DM_IDS = MESSAGES.filter((m) => m.kind === 'direct').map((m) => m.id);
export const CHANNEL_IDS = MESSAGES.filter((m) => m.kind === 'stream').map((m) => m.id);

/** All fixture IDs except these. */
export function allBut(...ids: number[]): number[] {
  return ALL_IDS.filter((id) => !ids.includes(id));
}
