//! The `pidcanon` command line: see `pidcanon --help`.

mod cli;

fn main() -> std::process::ExitCode {
    cli::main()
}
