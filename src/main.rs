fn main() {
    std::process::exit(tessera::cli::main());
}
