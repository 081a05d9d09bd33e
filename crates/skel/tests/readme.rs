//! The top-level README's "As a library" program is the `own_render_loop` example, which CI
//! builds and runs: the README cannot show code that does not compile.
#![allow(clippy::expect_used, reason = "tests")]

#[test]
fn readme_library_program_is_the_own_render_loop_example() {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/../..");
    let readme = std::fs::read_to_string(format!("{root}/README.md")).expect("README.md");
    let example = include_str!("../examples/own_render_loop.rs");
    let section = &readme[readme.find("## As a library").expect("the section")..];
    let start = section.find("```rust\n").expect("a rust block") + "```rust\n".len();
    let block = &section[start..start + section[start..].find("```").expect("block end")];
    assert!(block.lines().count() > 20, "the block is the whole program");
    assert!(
        example.contains(block),
        "README.md's \"As a library\" block differs from crates/skel/examples/own_render_loop.rs"
    );
}
