"""Model providers: the Anthropic adapter, the offline model, the wire request builder.

Import the submodules directly (`agent_cli.provider.factory.create_provider`,
`agent_cli.provider.wire.build_wire_request`); nothing here imports the SDK.
"""
