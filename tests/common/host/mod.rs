//! Support of the host tests (C, C++, C#, package): where the library and repository are,
//! tools that must be installed, scratch directories, and the demo fixtures under a fresh
//! program id. One file per part: `paths`, `demo`, `compile`, `easy_vb6`, `run`, `sanitizers`,
//! `csharp`, `https`, `markdown`, `newcomer`, `notices`, `pieces` and `typed_program`.

use std::path::PathBuf;
use std::process::{Command, Output};
use std::time::{SystemTime, UNIX_EPOCH};

use verify_sandbox::{Config, Fixtures, Sandbox};

mod compile;
mod csharp;
mod demo;
mod easy_vb6;
mod https;
mod markdown;
mod newcomer;
mod notices;
mod paths;
mod pieces;
mod run;
mod sanitizers;
mod typed_program;

// Every item stays at `common::host::NAME`; a test binary uses only some of them.
#[allow(unused_imports)]
pub use {
    compile::*, csharp::*, demo::*, easy_vb6::*, https::*, markdown::*, newcomer::*, notices::*,
    paths::*, pieces::*, run::*, sanitizers::*, typed_program::*,
};
