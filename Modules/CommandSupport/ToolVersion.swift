/// The version both command-line tools print for `--version` (`autotrack-agent 0.9.0`): the one
/// place it is spelled.
public let toolVersion = "0.9.0"
