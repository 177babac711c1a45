//! Prints the summary of each argument as JSON (a debugging aid).
fn main() {
    for line in std::env::args().skip(1) {
        let summary = ploy_shell::analyze(&line);
        match serde_json::to_string(&summary) {
            Ok(json) => println!("{json}"),
            Err(e) => eprintln!("{e}"),
        }
    }
}
