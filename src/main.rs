//! The `pidcanon` command line: see `pidcanon --help`.

mod cli;

/// mimalloc: the rewriter allocates terms on one thread and frees them on another, which the
/// system allocator does slowly (measured: TTL→NT 1.60 s with it, see README).
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    cli::main()
}
