#!/usr/bin/env python3
"""Calls every API method of python-zulip-api's zulip.Client against a running Palaver server.

Not part of the automated suite: python-zulip-api is not vendored (see test/README.md for how to bring it in and
run this). Usage:

    PYTHONPATH=/path/to/python-zulip-api/zulip python3 test/clients/python_zulip_api_calls.py OWNER_ZULIPRC OTHER_EMAIL

OWNER_ZULIPRC: a zuliprc of an organization owner; OTHER_EMAIL: another (human) user of the organization.
Prints one line per call (ok / FAIL with the server's answer) and a closing "N passed, N failed" line.
"""
import io
import struct
import sys
import time
import zlib

import zulip

rc, other_email = sys.argv[1], sys.argv[2]
client = zulip.Client(config_file=rc)
results = []


def call(name, fn, expect_error=None):
    """Runs one call; success is result == success, or the named error code when the call is meant to fail."""
    try:
        r = fn()
    except Exception as e:  # a client-side crash counts as a failure
        r = {"result": "error", "msg": f"client raised {type(e).__name__}: {e}"}
    ok = r.get("result") == "success" if expect_error is None else r.get("code") == expect_error
    results.append((name, ok))
    print(("ok   " if ok else "FAIL ") + name + ("" if ok else f"  -> {r}"))
    return r


def png():
    """A 1x1 PNG, made here."""
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = zlib.compress(b"\x00\xff\x00\x00")
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0)) + chunk(b"IDAT", raw) + chunk(b"IEND", b"")


def named(data, name):
    f = io.BytesIO(data)
    f.name = name
    return f


stamp = str(int(time.time()))
stream = "pyapi-" + stamp
print(f"server {client.base_url}: zulip_version {client.zulip_version}, feature level {client.feature_level}")

call("get_server_settings", client.get_server_settings)
me = call("get_profile", client.get_profile)
other = call("get_user_by_email", lambda: client.call_endpoint(f"users/{other_email}", method="GET"))
other_id = other.get("user", {}).get("user_id")
call("get_users", client.get_users)
call("get_members", client.get_members)
call("get_user_by_id", lambda: client.get_user_by_id(other_id))
call("update_user_by_id", lambda: client.update_user_by_id(other_id, full_name="Iago the Second"))

call("add_subscriptions", lambda: client.add_subscriptions([{"name": stream, "description": "made by the driver"}]))
sid = call("get_stream_id", lambda: client.get_stream_id(stream)).get("stream_id")
call("get_streams", client.get_streams)
call("get_subscriptions", client.get_subscriptions)
call("list_subscriptions", client.list_subscriptions)
call("get_subscription_status", lambda: client.get_subscription_status(me["user_id"], sid))
call("get_subscribers", lambda: client.get_subscribers(stream=stream))
call("update_stream", lambda: client.update_stream({"stream_id": sid, "description": "changed"}))
call("update_subscription_settings", lambda: client.update_subscription_settings([{"stream_id": sid, "property": "pin_to_top", "value": True}]))
call("add_default_stream", lambda: client.add_default_stream(sid))

sent = call("send_message (channel)", lambda: client.send_message({"type": "stream", "to": stream, "topic": "driver", "content": "hello **world**"}))
mid = sent.get("id")
call("send_message (direct)", lambda: client.send_message({"type": "private", "to": [other_email], "content": "hi there"}))
call("get_messages", lambda: client.get_messages({"anchor": "newest", "num_before": 10, "num_after": 0, "narrow": [{"operator": "channel", "operand": stream}]}))
call("check_messages_match_narrow", lambda: client.check_messages_match_narrow(msg_ids=[mid], narrow=[{"operator": "search", "operand": "hello"}]))
call("get_raw_message", lambda: client.get_raw_message(mid))
call("render_message", lambda: client.render_message({"content": "**bold**"}))
call("update_message", lambda: client.update_message({"message_id": mid, "content": "hello edited"}))
call("get_message_history", lambda: client.get_message_history(mid))
call("add_reaction", lambda: client.add_reaction({"message_id": mid, "emoji_name": "octopus"}))
call("remove_reaction", lambda: client.remove_reaction({"message_id": mid, "emoji_name": "octopus"}))
call("update_message_flags", lambda: client.update_message_flags({"messages": [mid], "op": "add", "flag": "starred"}))
call("mark_topic_as_read", lambda: client.mark_topic_as_read(sid, "driver"))
call("mark_stream_as_read", lambda: client.mark_stream_as_read(sid))
call("mark_all_as_read", client.mark_all_as_read)
call("get_stream_topics", lambda: client.get_stream_topics(sid))
call("mute_topic", lambda: client.mute_topic({"op": "add", "stream": stream, "topic": "driver"}))
call("set_typing_status", lambda: client.set_typing_status({"op": "start", "to": [other_id]}))
doomed = call("send_message (to delete)", lambda: client.send_message({"type": "stream", "to": stream, "topic": "driver", "content": "bye"}))
call("delete_message", lambda: client.delete_message(doomed.get("id")))
call("add_subscriptions (move target)", lambda: client.add_subscriptions([{"name": stream + "-b"}]))
call("move_topic", lambda: client.move_topic(stream, stream + "-b", "driver", "moved"))

up = call("upload_file", lambda: client.upload_file(named(b"some text\n", "notes.txt")))
call("get_attachments", client.get_attachments)
call("get_realm_emoji", client.get_realm_emoji)
call("upload_custom_emoji", lambda: client.upload_custom_emoji("driver_" + stamp, named(png(), "e.png")))
call("delete_custom_emoji", lambda: client.delete_custom_emoji("driver_" + stamp))
call("get_realm_linkifiers", client.get_realm_linkifiers)
lf = call("add_realm_filter", lambda: client.add_realm_filter("#(?P<id>[0-9]+)" + stamp, "https://example.com/issues/{id}"))
call("remove_realm_filter", lambda: client.remove_realm_filter(lf.get("id")))

call("get_alert_words", client.get_alert_words)
call("add_alert_words", lambda: client.add_alert_words(["palaver"]))
call("remove_alert_words", lambda: client.remove_alert_words(["palaver"]))
call("update_presence", lambda: client.update_presence({"status": "active"}))
call("get_user_presence", lambda: client.get_user_presence(me["email"]))
call("get_realm_presence", client.get_realm_presence)

group = call("create_user_group", lambda: client.create_user_group({"name": "driver-" + stamp, "description": "d", "members": [me["user_id"]]}))
gid = group.get("group_id")
call("get_user_groups", client.get_user_groups)
call("update_user_group", lambda: client.update_user_group({"group_id": gid, "description": "changed"}))
call("update_user_group_members", lambda: client.update_user_group_members(gid, {"add": [other_id]}))
call("remove_user_group", lambda: client.remove_user_group(gid))

q = call("register", lambda: client.register(event_types=["message"]))
call("get_events", lambda: client.get_events(queue_id=q.get("queue_id"), last_event_id=-1, dont_block=True))
call("deregister", lambda: client.deregister(q.get("queue_id")))

call("update_notification_settings", lambda: client.update_notification_settings({"enable_sounds": False}))
call("get_stream_email_address", lambda: client.get_stream_email_address(sid))
call("get_realm_profile_fields", client.get_realm_profile_fields)
call("create_user", lambda: client.create_user({"email": f"new{stamp}@palaver.local", "password": "a-long-password-1", "full_name": "New"}))
call("deactivate_user_by_id", lambda: client.deactivate_user_by_id(other_id))
call("reactivate_user_by_id", lambda: client.reactivate_user_by_id(other_id))
call("delete_stream", lambda: client.delete_stream(sid))
call("remove_subscriptions", lambda: client.remove_subscriptions([stream + "-b"]))

passed = sum(1 for _, ok in results if ok)
print(f"{passed} passed, {len(results) - passed} failed")
sys.exit(0 if passed == len(results) else 1)
