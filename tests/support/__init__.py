"""What the tests share: where their inputs are (paths), rftc's command line run in the test's process (cli)."""
