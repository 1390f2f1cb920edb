"""What the REPL shortens splits no secret and no pointer (issue 21, items 2 and 11).

The approval view shows a very long line as its start and its end; a key the model put
in a command must not be shown in half there. `clip_line` shortens every one-line thing
the REPL prints (`/sources`, `/last`, the tool lines): a pointer cut in half there can
no longer be copied and used.
"""

from __future__ import annotations

import re
from pathlib import Path

from cuts_support import PaddedSecret, assert_no_piece_leaks, leaked_piece, padded_secrets
from hostile_support import fuzz_settings
from hypothesis import example, given
from hypothesis import strategies as st
from repl_fakes import make_console

from agent_cli.events import ToolStarted
from agent_cli.repl.approval_lines import TAB_STYLE, TRAILING_SPACE
from agent_cli.repl.approval_view import build_approval_view, forms_as_shown
from agent_cli.repl.safe_text import clip_line
from agent_cli.repl.tool_lines import build_tool_started_line
from agent_cli.repl.views import build_sources_view
from agent_cli.secret_forms import SecretForms
from agent_cli.sources.resolution import SourceResolution, SourceResolutionStatus
from agent_cli.tools import Toolbox
from agent_cli.tools.approval import build_command_approval
from agent_cli.tools.permissions import PermissionDecision, PermissionRequest

KEY = "sk-ant-FAKE-Zq9w8e7r6t5y4u3i2o1pLmNb"
# A well-formed pointer can be 500 characters long; this one is about 235.
POINTER = "artifact:s-20261203-101500-abcdef:" + "ab" * 60 + "-bash-output.txt:" + "0f" * 32


def shown_text(view) -> str:
    """What the view shows, each line's rows joined again (a row that goes on from the
    one above starts with a blank gutter and `┆`), a space drawn as `TRAILING_SPACE` where
    a row ends or starts read as the space it stands for."""
    return "\n".join(
        re.sub(r"\n *┆ ", "", _spaces_read(line)) for line in [view.header, *view.lines]
    )


def _spaces_read(line) -> str:
    characters = list(line.plain)
    for span in line.spans:
        if span.style == TAB_STYLE:
            for at in range(span.start, span.end):
                if characters[at] == TRAILING_SPACE:
                    characters[at] = " "
    return "".join(characters)


def test_the_approval_view_shortens_a_long_command_between_keys(tmp_path: Path):
    """The request comes from the real toolbox, which knows the secrets it redacts."""
    asked: list[PermissionRequest] = []

    def ask(request: PermissionRequest) -> PermissionDecision:
        asked.append(request)
        return PermissionDecision.DENY

    box = Toolbox(
        tmp_path,
        artifacts=None,  # type: ignore[arg-type]  # a denied command stores nothing
        session_id="s1",
        ask_permission=ask,
        secret_environment={"ANTHROPIC_API_KEY": KEY},
    )
    command = "echo " + " ".join([KEY] * 60)
    assert box.run("bash", {"command": command}).is_error
    view = build_approval_view(asked[0], 80, 40)
    assert view.is_shortened
    shown = shown_text(view)
    assert "characters not shown" in shown
    assert leaked_piece(SecretForms.from_values([KEY]).redact(shown), KEY) is None, shown


@fuzz_settings(0.1)
@given(
    case=padded_secrets(),
    width=st.integers(30, 140),
    repeats=st.integers(1, 12),
)
# A secret holding a combining mark the view writes out (`<U+0AC3>`, `<U+0327>` of ¸ in
# NFKD), percent-spelled or shell-quoted: its shown form was none the cuts knew.
@example(
    case=PaddedSecret("Å~Nૃ<ŁÐ𥌵áfh>4ãZNÎÝYĤ", "Å%7ENૃ<ŁÐ𥌵áfh>4ãZNÎÝYĤ", "", ""),
    width=30,
    repeats=1,
)
@example(case=PaddedSecret("m00à,ĩ嚀𝌀¸0¼", "m00à\\,ĩ嚀𝌀\\ ̧01⁄4", "···", ""), width=99, repeats=5)
@example(case=PaddedSecret("m0,+vï𝌎𡽑¸E½", "m0,+vï𝌎𡽑\\ ̧E1⁄2", "···", ""), width=99, repeats=5)
def test_an_approval_view_cut_anywhere_leaves_no_piece_of_a_secret(case, width, repeats):
    secret, form, before, after = case
    secrets = SecretForms.from_values([secret])

    def shown(command: str) -> str:
        request = PermissionRequest(
            "bash", command, build_command_approval(command), secrets=secrets
        )
        view = build_approval_view(request, width, 30)
        return forms_as_shown(secrets).redact(shown_text(view))  # `<U+…>` written out too

    def one_long_line(flat_form: str) -> str:
        return ((before + flat_form) * repeats + after).replace("\n", " ")

    assert_no_piece_leaks(shown, secret, form.replace("\n", ""), one_long_line)


def test_clip_line_keeps_a_pointer_whole():
    assert clip_line(f"see {POINTER} now", 60) == f"see {POINTER}…"
    assert clip_line(POINTER, 120) == POINTER
    assert clip_line("plain words " * 30, 40).endswith("…")
    assert len(clip_line("plain words " * 30, 40)) <= 40


def test_sources_and_tool_lines_show_long_pointers_whole():
    resolution = SourceResolution(POINTER, SourceResolutionStatus.MISSING, "no_such_artifact")
    wide = make_console(width=300)
    wide.print(build_sources_view([resolution]))
    assert any(POINTER in line for line in wide.export_text().splitlines())
    panel = build_tool_started_line(ToolStarted("t1", "read_artifact", {"pointer": POINTER}))
    assert f"pointer: {POINTER}" in panel.plain
