#!/usr/bin/env bash
# Runs python-zulip-api's bundled example scripts (zulip/zulip/examples/*) and zulip-send against a running
# Palaver server. Not part of the automated suite; see test/README.md for how to bring python-zulip-api in.
#   test/clients/python_zulip_api_examples.sh /path/to/python-zulip-api OWNER_ZULIPRC OTHER_ZULIPRC
# (zuliprc files of an organization owner and of another user). Prints one line per script and a closing
# "N passed, N failed" line.
set -u
api=$1 rc=$2 other_rc=$3
ex=$api/zulip/zulip/examples
export PYTHONPATH=$api/zulip
py=${PYTHON:-/usr/bin/python3}
stream=examples-$(date +%s)
other=$(sed -n 's/^email=//p' "$other_rc")
# The other user has been online, so there is presence data to show.
$py -c "import zulip; zulip.Client(config_file='$other_rc').update_presence({'status': 'active'})"
passed=0 failed=0
tmp=$(mktemp -d)

run() { # name, then the command; success is exit status 0 and no "'result': 'error'" in the output
  local name=$1; shift
  if timeout 30 "$@" >"$tmp/out" 2>&1 && ! grep -q "'result': 'error'" "$tmp/out"; then
    passed=$((passed + 1)); echo "ok   $name"
  else
    failed=$((failed + 1)); echo "FAIL $name: $(tail -c 400 "$tmp/out" | tr '\n' ' ')"
  fi
}
# A long-running script (event loops): success is that it is still running after a few seconds and said no error.
run_for_a_while() {
  local name=$1; shift
  timeout 5 "$@" >"$tmp/out" 2>&1
  local status=$?
  if [ $status -eq 124 ] && ! grep -qi "error\|traceback" "$tmp/out"; then
    passed=$((passed + 1)); echo "ok   $name"
  else
    failed=$((failed + 1)); echo "FAIL $name (exit $status): $(tail -c 400 "$tmp/out" | tr '\n' ' ')"
  fi
}
msg_id() { # sends a message to the example channel and prints its id
  $py -c "import zulip,sys; c=zulip.Client(config_file='$rc'); print(c.send_message({'type':'stream','to':'$stream','topic':'t','content':sys.argv[1]})['id'])" "$1"
}

Z=(--config-file "$rc")
run subscribe $py "$ex/subscribe" "${Z[@]}" --streams="$stream"
run get-subscriptions $py "$ex/get-subscriptions" "${Z[@]}"
run get-public-streams $py "$ex/get-public-streams" "${Z[@]}"
run send-message $py "$ex/send-message" "${Z[@]}" --type=stream --subject=hello --message="from send-message" "$stream"
run send-message-direct $py "$ex/send-message" "${Z[@]}" "$other"
run zulip-send $py "$api/zulip/zulip/send.py" "${Z[@]}" --stream "$stream" --subject sent -m "from zulip-send"
id=$(msg_id "to edit")
run edit-message $py "$ex/edit-message" "${Z[@]}" --message-id="$id" --content="edited"
run get-raw-message $py "$ex/get-raw-message" "${Z[@]}" "$id"
run message-history $py "$ex/message-history" "${Z[@]}" "$id"
run update-message-flags $py "$ex/update-message-flags" "${Z[@]}" add starred "$id"
run get-messages $py "$ex/get-messages" "${Z[@]}" --anchor "$id" --num-before 5 --num-after 5
run get-history $py "$ex/get-history" "${Z[@]}" --stream "$stream" --filename "$tmp/history.json"
sid=$($py -c "import zulip; print(zulip.Client(config_file='$rc').get_stream_id('$stream')['stream_id'])")
run get-stream-topics $py "$ex/get-stream-topics" "${Z[@]}" --stream-id="$sid"
run mute-topic $py "$ex/mute-topic" "${Z[@]}" mute "$stream" hello
run unmute-topic $py "$ex/mute-topic" "${Z[@]}" unmute "$stream" hello
id=$(msg_id "to delete")
run delete-message $py "$ex/delete-message" "${Z[@]}" "$id"
run alert-words-add $py "$ex/alert-words" "${Z[@]}" add palaver
run alert-words-get $py "$ex/alert-words" "${Z[@]}" get
run alert-words-remove $py "$ex/alert-words" "${Z[@]}" remove palaver
run get-user-presence $py "$ex/get-user-presence" "${Z[@]}" --email="$other"
run list-users $py "$ex/list-users" "${Z[@]}"
run realm-emoji $py "$ex/realm-emoji" "${Z[@]}"
echo "a file" >"$tmp/upload.txt"
run upload-file $py "$ex/upload-file" "${Z[@]}" --file-path "$tmp/upload.txt"
run create-user $py "$ex/create-user" "${Z[@]}" --new-email="made$(date +%s)@palaver.local" --new-password="a-long-password-1" --new-full-name="Made" --new-short-name=made
mkdir -p "$tmp/home" && cp "$rc" "$tmp/home/.zuliprc"
# welcome-message reads ~/.zuliprc only.
HOME=$tmp/home run_for_a_while welcome-message $py "$ex/welcome-message"
run_for_a_while print-events $py "$ex/print-events" "${Z[@]}"
run_for_a_while print-messages $py "$ex/print-messages" "${Z[@]}"
run unsubscribe $py "$ex/unsubscribe" "${Z[@]}" --streams="$stream"
# edit-stream always renames the channel (an unset --new-name is sent as the text "None"): give it a new name.
run edit-stream $py "$ex/edit-stream" "${Z[@]}" --stream-id "$sid" --description "edited by edit-stream" --new-name "$stream-renamed"
run delete-stream $py "$ex/delete-stream" "${Z[@]}" "$sid"

rm -rf "$tmp"
echo "$passed passed, $failed failed"
[ $failed -eq 0 ]
