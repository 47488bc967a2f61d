//! `linerate completions` and `linerate man`: shell completions and man
//! pages generated from the same clap definitions the tool parses with, so
//! they never drift from the real options.

use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use clap_complete::Shell;

/// Arguments of `linerate completions`.
#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to write completions for.
    #[arg(value_enum)]
    shell: Shell,
}

/// Arguments of `linerate man`.
#[derive(Debug, Args)]
pub struct ManArgs {
    /// Directory to write `linerate.1` and `linerate-SUBCOMMAND.1` into
    /// (created if missing).
    #[arg(long, default_value = "man")]
    out: PathBuf,
}

/// Prints the completion script for `args.shell` to stdout.
pub fn completions(args: CompletionsArgs, mut cmd: clap::Command) -> Result<()> {
    // Rendered into memory first: clap_complete panics on a failed write
    // with a message of its own.
    let mut script = Vec::new();
    clap_complete::generate(args.shell, &mut cmd, "linerate", &mut script);
    // A closed pipe ends the command quietly (main's rule for all commands).
    std::io::Write::write_all(&mut std::io::stdout(), &script)
        .context("writing the completion script")
}

/// Writes one man page per command and subcommand into `args.out`.
pub fn man(args: ManArgs, cmd: clap::Command) -> Result<()> {
    std::fs::create_dir_all(&args.out)
        .with_context(|| format!("creating {}", args.out.display()))?;
    let mut written = 0;
    write_pages(&args.out, cmd, &mut written)?;
    eprintln!("wrote {written} man pages to {}", args.out.display());
    Ok(())
}

fn write_pages(dir: &std::path::Path, cmd: clap::Command, written: &mut usize) -> Result<()> {
    let name = cmd.get_display_name().unwrap_or(cmd.get_name()).to_owned();
    // The synopsis shows the command as typed: "linerate fade recv".
    let cmd = cmd.bin_name(name.replace('-', " "));
    let path = dir.join(format!("{name}.1"));
    let mut page = Vec::new();
    clap_mangen::Man::new(cmd.clone())
        .render(&mut page)
        .with_context(|| format!("rendering the man page of {name}"))?;
    std::fs::write(&path, page).with_context(|| format!("writing {}", path.display()))?;
    *written += 1;
    for sub in cmd.get_subcommands() {
        if sub.get_name() == "help" {
            continue;
        }
        let sub = sub
            .clone()
            .display_name(format!("{name}-{}", sub.get_name()));
        write_pages(dir, sub, written)?;
    }
    Ok(())
}
