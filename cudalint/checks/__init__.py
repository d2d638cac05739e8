"""The rules: one module per rule, registered by code. `registry.all_rules()` discovers them."""
