"""A launch's own copy of veRL (a checkout, a fork or an installed package), whose config the launch composes
instead of a bundled release's: which copy the launch imports (find.py), its config folder composed by hydra-core
(config_folder.py), the upstream release it is (upstream.py), and the launch composed on it (compose.py)."""
