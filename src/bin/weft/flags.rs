//! The subcommands' flags for view options, from the views' one schema (`weft::views::options`): the help text
//! is the schema's, the possible values are its choices, and a value is checked by `ViewOptions::parse`, so a
//! value the page refuses the CLI refuses with the same words. Flag names and defaults stay the CLI's own.

use clap::builder::{PossibleValue, TypedValueParser};
use clap::error::ErrorKind;
use std::ffi::OsStr;
use std::marker::PhantomData;
use weft::views::options::{Kind, OptionSpec, ViewOptions};

/// A clap value parser for option `key` of the view options `T`: checked by the schema, kept as text.
#[derive(Clone)]
pub struct Checked<T> {
    spec: &'static OptionSpec,
    view: PhantomData<fn() -> T>,
}

/// The value parser of option `key` (a key the schema lacks is a bug in the CLI: it panics at once).
pub fn checked<T: ViewOptions>(key: &str) -> Checked<T> {
    let spec = T::spec(key).unwrap_or_else(|e| panic!("the CLI names {e}"));
    Checked { spec, view: PhantomData }
}

/// The schema's help for option `key`.
pub fn help<T: ViewOptions>(key: &str) -> &'static str {
    checked::<T>(key).spec.help
}

impl<T: ViewOptions + 'static> TypedValueParser for Checked<T> {
    type Value = String;

    fn parse_ref(&self, cmd: &clap::Command, arg: Option<&clap::Arg>, value: &OsStr) -> Result<String, clap::Error> {
        let text = value.to_string_lossy();
        T::default().parse(self.spec.key, &text).map_err(|e| {
            let flag = arg.and_then(|a| a.get_long()).unwrap_or(self.spec.key);
            clap::Error::raw(ErrorKind::ValueValidation, format!("invalid value '{text}' for '--{flag}': {e}\n"))
                .with_cmd(cmd)
        })?;
        Ok(text.into_owned())
    }

    fn possible_values(&self) -> Option<Box<dyn Iterator<Item = PossibleValue> + '_>> {
        match self.spec.kind {
            // A choice with an open entry (busy = pattern:GLOB) takes more than its list: no list in --help.
            Kind::Choice { choices, other: None } => {
                Some(Box::new(choices.iter().map(|c| PossibleValue::new(c.value).help(c.label))))
            }
            _ => None,
        }
    }
}
