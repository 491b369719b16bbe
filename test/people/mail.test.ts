// Outgoing email: the SMTP client against a tiny SMTP listener on 127.0.0.1, the sender delivering the outbox,
// and a server without SMTP_URL keeping (and logging) mail rather than dropping it.
import net from 'node:net';
import test from 'ava';
import { createLogger } from '../../src/log.js';
import { MailSender } from '../../src/mail/sender.js';
import { formatMessage, sendMail } from '../../src/mail/smtp.js';
import { addUser } from '../helpers/users.js';
import { startTestServer, type TestServer } from '../helpers/server.js';

interface Received {
  from: string;
  to: string[];
  data: string;
  auth: string | null;
}

/** A minimal SMTP server: records messages; `rejectRcpt` answers RCPT with 550. */
function smtpListener(opts: { rejectRcpt?: boolean } = {}): Promise<{ port: number; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const server = net.createServer((sock) => {
    sock.setEncoding('utf8');
    let buf = '';
    let inData = false;
    let cur: Received = { from: '', to: [], data: '', auth: null };
    const reply = (l: string) => sock.write(l + '\r\n');
    reply('220 test.smtp ESMTP ready');
    sock.on('data', (chunk: string) => {
      buf += chunk;
      for (;;) {
        if (inData) {
          const end = buf.indexOf('\r\n.\r\n');
          if (end < 0) return;
          cur.data = buf.slice(0, end);
          buf = buf.slice(end + 5);
          inData = false;
          received.push(cur);
          cur = { from: '', to: [], data: '', auth: null };
          reply('250 2.0.0 queued');
          continue;
        }
        const i = buf.indexOf('\r\n');
        if (i < 0) return;
        const line = buf.slice(0, i);
        buf = buf.slice(i + 2);
        const cmd = line.slice(0, 4).toUpperCase();
        if (cmd === 'EHLO') reply('250-test.smtp\r\n250 AUTH PLAIN');
        else if (cmd === 'AUTH') {
          cur.auth = Buffer.from(line.split(' ')[2] ?? '', 'base64').toString('utf8');
          reply('235 2.7.0 ok');
        } else if (cmd === 'MAIL') {
          cur.from = /<(.*)>/.exec(line)![1]!;
          reply('250 ok');
        } else if (cmd === 'RCPT') {
          if (opts.rejectRcpt) reply('550 5.1.1 no such mailbox');
          else {
            cur.to.push(/<(.*)>/.exec(line)![1]!);
            reply('250 ok');
          }
        } else if (cmd === 'DATA') {
          inData = true;
          reply('354 go ahead');
        } else if (cmd === 'QUIT') {
          reply('221 bye');
          sock.end();
        } else reply('502 unknown');
      }
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({
        port: (server.address() as net.AddressInfo).port,
        received,
        close: () => new Promise((r) => server.close(() => r())),
      }),
    ),
  );
}

test('the SMTP client delivers one message: envelope, headers, UTF-8 subject, dot-stuffing, AUTH PLAIN', async (t) => {
  const smtp = await smtpListener();
  try {
    await sendMail(`smtp://robot:s%40cret@127.0.0.1:${smtp.port}`, {
      from: 'noreply@palaver.test',
      to: 'someone@example.test',
      subject: 'Grüße',
      body: 'line one\n.starts with a dot\nlast',
    });
    t.is(smtp.received.length, 1);
    const m = smtp.received[0]!;
    t.is(m.from, 'noreply@palaver.test');
    t.deepEqual(m.to, ['someone@example.test']);
    t.is(m.auth, '\u0000robot\u0000s@cret');
    t.regex(m.data, /^From: noreply@palaver\.test\r\nTo: someone@example\.test\r\nSubject: =\?UTF-8\?B\?R3LDvMOfZQ==\?=\r\n/);
    t.regex(m.data, /\r\n\r\nline one\r\n\.\.starts with a dot\r\nlast$/);
  } finally {
    await smtp.close();
  }
});

test('the SMTP client reports a refused recipient and an unreachable server', async (t) => {
  const smtp = await smtpListener({ rejectRcpt: true });
  try {
    const err = await t.throwsAsync(sendMail(`smtp://127.0.0.1:${smtp.port}`, { from: 'a@b.test', to: 'c@d.test', subject: 's', body: 'b' }));
    t.regex(err!.message, /RCPT TO: 550/);
  } finally {
    await smtp.close();
  }
  const closed = await smtpListener();
  const port = closed.port;
  await closed.close();
  await t.throwsAsync(sendMail(`smtp://127.0.0.1:${port}`, { from: 'a@b.test', to: 'c@d.test', subject: 's', body: 'b' }));
  t.throws(() => formatMessage({ from: 'x@y\r\nBcc: evil@z', to: 'a@b', subject: 's', body: '' }, 'h'));
});

let s: TestServer | undefined;
let withSmtp: TestServer | undefined;
let smtp: Awaited<ReturnType<typeof smtpListener>> | undefined;
test.after.always(async () => {
  await s?.close();
  await withSmtp?.close();
  await smtp?.close();
});

test.serial('without SMTP_URL a deactivation notice is kept in the outbox (and logged), never dropped', async (t) => {
  s = await startTestServer();
  const u = await addUser(s, { role: 400 });
  t.is((await s.client.as(s.owner).delete(`/users/${u.id}`, { form: { deactivation_notification_comment: 'Bye' } })).status, 200);
  const lines: string[] = [];
  const log = createLogger('warn');
  const logger = log.child({}, { level: 'warn' });
  const sender = new MailSender(s.server.services.db, { smtpUrl: undefined, mailFrom: 'noreply@test' }, Object.assign(Object.create(logger), {
    warn: (obj: unknown, msg: string) => lines.push(`${msg} ${JSON.stringify(obj)}`),
  }));
  await sender.deliverPending();
  await sender.deliverPending();
  const mine = lines.filter((l) => l.includes(u.email));
  t.is(mine.length, 1);
  t.regex(mine[0]!, /kept in the outbox/);
  const row = (await s.server.services.db.outbox.all()).find((m) => m.to === u.email)!;
  t.false(row.sent);
  t.is(sender.stats.kept, 1);
});

test.serial('without SMTP_URL every kept email is logged once, also behind the first batch of 100', async (t) => {
  for (let i = 0; i < 150; i++) await s!.server.services.db.outbox.enqueue({ realmId: null, to: `bulk-${i}@test`, subject: 's', body: 'b' });
  const lines: string[] = [];
  const logger = createLogger('warn').child({}, { level: 'warn' });
  const sender = new MailSender(s!.server.services.db, { smtpUrl: undefined, mailFrom: 'noreply@test' }, Object.assign(Object.create(logger), {
    warn: (obj: unknown, msg: string) => lines.push(`${msg} ${JSON.stringify(obj)}`),
  }));
  for (let i = 0; i < 3; i++) await sender.deliverPending();
  t.is(lines.filter((l) => l.includes('bulk-')).length, 150);
  t.is(new Set(lines).size, lines.length);
});

test.serial('with SMTP_URL the server delivers the outbox: a deactivation notice reaches the SMTP server and is marked sent', async (t) => {
  smtp = await smtpListener();
  withSmtp = await startTestServer({ env: { SMTP_URL: `smtp://127.0.0.1:${smtp.port}`, MAIL_FROM: 'palaver@test.example' } });
  const u = await addUser(withSmtp, { role: 400, fullName: 'Dee Activated' });
  t.is((await withSmtp.client.as(withSmtp.owner).delete(`/users/${u.id}`, { form: { deactivation_notification_comment: 'See you' } })).status, 200);
  // The sender polls the outbox; wait (bounded) for the message to arrive.
  for (let i = 0; i < 100 && smtp.received.length === 0; i++) await new Promise((r) => setTimeout(r, 100));
  t.is(smtp.received.length, 1);
  const m = smtp.received[0]!;
  t.is(m.from, 'palaver@test.example');
  t.deepEqual(m.to, [u.email]);
  t.regex(m.data, /Subject: Notification of account deactivation on Palaver/);
  t.regex(m.data, /Hello Dee Activated,/);
  t.regex(m.data, /See you/);
  let row;
  for (let i = 0; i < 50; i++) {
    row = (await withSmtp.server.services.db.outbox.all()).find((x) => x.to === u.email)!;
    if (row.sent) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  t.true(row!.sent);
});
