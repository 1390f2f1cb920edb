#!/usr/bin/env bash
# Re-record this example: a real agent-cli session on the offline model with thresholds
# low enough that every compaction layer fires. Run from the repository root:
#     transcripts.example/record.sh
# It builds a demo workspace in /tmp/agent-cli-demo, runs the session with a fresh
# AGENT_CLI_HOME, and replaces transcripts.example/transcripts and the session's
# tool-results with the new recording (this README, config.toml and this script stay).
set -euo pipefail
cd "$(dirname "$0")/.."
example="$PWD/transcripts.example"
agent_cli="${AGENT_CLI:-$PWD/.venv/bin/agent-cli}"
workspace=/tmp/agent-cli-demo

# 1. The workspace: a README, a 30 KB log (one read of it is far over the L1 limit),
#    and three notes of about 3 KB each.
rm -rf "$workspace"
mkdir -p "$workspace/notes"
printf '# Demo Project\n\nA small folder for trying agent-cli.\n\n## Layout\n\n- big.log: a long log\n- notes/: design notes\n' >"$workspace/README.md"
for n in $(seq -w 0 399); do
  echo "2026-12-02T09:$((10#$n % 60)):00Z worker-$((10#$n % 7)) job $n finished: status ok, 12 items, 340 ms"
done >"$workspace/big.log"
for name in alpha beta gamma; do
  for n in $(seq 1 40); do
    echo "$name note $n: the $name stage keeps its inputs and writes one result per item."
  done >"$workspace/notes/$name.md"
done

# 2. The session, in a fresh state folder that holds only the example's config.toml.
home="$(mktemp -d)"
cp "$example/config.toml" "$home/config.toml"
(
  cd "$workspace"
  printf '%s\n' \
    "read big.log" \
    "read README.md and tell me its first heading" \
    "read big.log" \
    "read notes/alpha.md" \
    "read notes/beta.md" \
    "list notes" \
    "read notes/alpha.md and read notes/beta.md and read notes/gamma.md" \
    "grep worker-3" \
    "list ." \
    "stats" |
    env -u ANTHROPIC_API_KEY -u ANTHROPIC_BASE_URL AGENT_CLI_HOME="$home" "$agent_cli"
) | tee "$home/screen.txt"

# 3. Keep the transcript and its artifacts, in the layout agent-cli expects.
session_id="$(basename "$(ls "$home"/transcripts/*.jsonl)" .jsonl)"
rm -rf "$example/transcripts" "$example"/2*-*-*/
mkdir -p "$example/transcripts"
cp "$home/transcripts/$session_id.jsonl" "$example/transcripts/"
mkdir -p "$example/$session_id"
cp -r "$home/$session_id/tool-results" "$example/$session_id/"
cp "$home/screen.txt" "$example/screen.txt"
rm -rf "$home"
echo "recorded session $session_id into $example"
