//! A command group whose arguments are defined only when the command line reaches it.

use clap::{ArgMatches, Args, Command, FromArgMatches, Subcommand};

/// `T`'s subcommands or arguments, defined lazily ([`Command::defer`]).
///
/// clap's derive builds every command of the tree before it parses a word, and ctx's tree is large:
/// defining all of it took a quarter of `ctx --version`'s time (0.7 of 2.8 ms). Wrapped in
/// `Deferred`, a group is defined only when the parser enters it or when help, completions and man
/// pages build the whole tree ([`Command::build`]); `ctx swarm status` never defines `frame`'s
/// fifteen commands.
#[derive(Debug)]
pub struct Deferred<T>(pub T);

impl<T: Subcommand> Subcommand for Deferred<T> {
    fn augment_subcommands(cmd: Command) -> Command {
        cmd.defer(T::augment_subcommands)
    }

    fn augment_subcommands_for_update(cmd: Command) -> Command {
        cmd.defer(T::augment_subcommands_for_update)
    }

    fn has_subcommand(name: &str) -> bool {
        T::has_subcommand(name)
    }
}

impl<T: Args> Args for Deferred<T> {
    fn group_id() -> Option<clap::Id> {
        T::group_id()
    }

    fn augment_args(cmd: Command) -> Command {
        cmd.defer(T::augment_args)
    }

    fn augment_args_for_update(cmd: Command) -> Command {
        cmd.defer(T::augment_args_for_update)
    }
}

impl<T: FromArgMatches> FromArgMatches for Deferred<T> {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches(matches).map(Deferred)
    }

    fn from_arg_matches_mut(matches: &mut ArgMatches) -> Result<Self, clap::Error> {
        T::from_arg_matches_mut(matches).map(Deferred)
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches(matches)
    }

    fn update_from_arg_matches_mut(&mut self, matches: &mut ArgMatches) -> Result<(), clap::Error> {
        self.0.update_from_arg_matches_mut(matches)
    }
}
