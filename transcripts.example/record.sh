#!/usr/bin/env bash
# Re-record this example: the README's own demo sequence, run by a real agent-cli on the
# offline model with its demo settings, in a workspace holding this repository's
# README.md and docs. Run from the repository root:
#     transcripts.example/record.sh
# It builds the workspace in /tmp/agent-cli-demo, runs the session with a fresh
# AGENT_CLI_HOME, and replaces transcripts.example/transcripts, the session's tool-results
# and screen.txt with the new recording (this README, config.toml and this script stay).
set -euo pipefail
cd "$(dirname "$0")/.."
example="$PWD/transcripts.example"
agent_cli="${AGENT_CLI:-$PWD/.venv/bin/agent-cli}"
workspace=/tmp/agent-cli-demo

# 1. The workspace: the files the README's demo reads.
rm -rf "$workspace"
mkdir -p "$workspace/docs"
cp README.md "$workspace/README.md"
cp docs/architecture.md docs/reliability.md "$workspace/docs/"

# 2. The session, in a fresh state folder that holds only the example's config.toml
#    (the offline demo settings, written out so that a resume uses them too).
home="$(mktemp -d)"
cp "$example/config.toml" "$home/config.toml"
(
  cd "$workspace"
  printf '%s\n' \
    "read README.md" \
    "read docs/architecture.md" \
    "read docs/reliability.md" \
    "read README.md" \
    "stats" |
    env -u ANTHROPIC_API_KEY -u ANTHROPIC_BASE_URL AGENT_CLI_HOME="$home" COLUMNS=100 "$agent_cli"
) | tee "$home/screen.txt"

# 3. Keep the transcript and its artifacts, in the layout agent-cli expects.
session_id="$(basename "$(ls "$home"/transcripts/*.jsonl)" .jsonl)"
rm -rf "$example/transcripts" "$example"/2*-*-*/
mkdir -p "$example/transcripts"
cp "$home/transcripts/$session_id.jsonl" "$example/transcripts/"
if [ -d "$home/$session_id/tool-results" ]; then
  mkdir -p "$example/$session_id"
  cp -r "$home/$session_id/tool-results" "$example/$session_id/"
fi
cp "$home/screen.txt" "$example/screen.txt"
rm -rf "$home"
echo "recorded session $session_id into $example"
