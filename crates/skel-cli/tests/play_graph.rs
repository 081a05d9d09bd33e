//! `skel play --graph`: the built-in character's graph (`graphs/default_character.json`) fades
//! from the Idle/Walk blend to Run when `--set` raises the speed, weights within a layer sum to
//! 1 every frame, `--travel` sends a layer to a state, a trigger fires RobotExpressive's jump
//! (`graphs/robot_expressive.json`), `--root-motion` extracts RobotExpressive's body motion,
//! and bad arguments are refused naming what is wrong.
#![allow(clippy::unwrap_used, clippy::expect_used, reason = "tests")]

mod common;

use serde_json::Value;

fn repo(rel: &str) -> String {
    format!("{}/../../{rel}", env!("CARGO_MANIFEST_DIR"))
}

fn play(asset: &str, graph: &str, extra: &[&str]) -> Value {
    let (asset, graph) = (asset.to_owned(), repo(graph));
    let mut args = vec!["play", &asset, "--graph", &graph, "--json"];
    args.extend_from_slice(extra);
    let (ok, stdout, stderr) = common::skel(&args);
    assert!(ok, "skel {args:?}: {stderr}");
    serde_json::from_str(&stdout).unwrap()
}

/// Layer `l` of frame `f`.
fn layer(frame: &Value, l: usize) -> &Value {
    &frame["layers"][l]
}

fn clip_weight(layer: &Value, clip: &str) -> f64 {
    layer["clips"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|c| c["clip"] == clip)
        .map(|c| c["weight"].as_f64().unwrap())
        .sum()
}

#[test]
fn raising_the_speed_fades_the_character_into_run() {
    let out = play(
        &repo("fixtures/default_character.glb"),
        "graphs/default_character.json",
        &["--set", "0.5:speed=3", "--seconds", "1.5", "--fps", "20"],
    );
    let frames = out["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 30);
    for f in frames {
        for l in f["layers"].as_array().unwrap() {
            let clips = l["clips"].as_array().unwrap();
            if clips.is_empty() {
                continue;
            }
            let total: f64 = clips.iter().map(|c| c["weight"].as_f64().unwrap()).sum();
            assert!(
                (total - 1.0).abs() < 1e-5,
                "t {}: weights sum to {total}",
                f["t"]
            );
            assert!(clips.iter().all(|c| c["time"].as_f64().unwrap() >= 0.0));
        }
    }
    // Before 0.5 s: standing (speed 0: Idle alone), no fade.
    let before = layer(&frames[9], 0);
    assert_eq!(frames[9]["t"], 0.5);
    assert_eq!(before["name"], "locomotion");
    assert_eq!(before["state"], "move");
    assert!(before["transition"].is_null());
    assert_eq!(clip_weight(before, "Idle"), 1.0);
    // The tick starting at 0.5 s sets the speed: a fade to run starts at once.
    let fading = layer(&frames[10], 0);
    assert_eq!(fading["state"], "run");
    assert_eq!(fading["transition"]["from"], "move");
    assert_eq!(fading["transition"]["to"], "run");
    let progress: Vec<f64> = frames[10..]
        .iter()
        .map_while(|f| layer(f, 0)["transition"]["progress"].as_f64())
        .collect();
    assert!(
        progress.len() >= 5,
        "a 0.3 s fade spans 6 ticks at 20 fps: {progress:?}"
    );
    assert!(progress.windows(2).all(|w| w[1] > w[0]));
    // Then Run alone.
    let after = layer(&frames[29], 0);
    assert!(after["transition"].is_null());
    assert_eq!(clip_weight(after, "Run"), 1.0);
    // The wave layer stays off (an empty state: no clips).
    assert_eq!(layer(&frames[29], 1)["state"], "off");
    assert!(
        layer(&frames[29], 1)["clips"]
            .as_array()
            .unwrap()
            .is_empty()
    );
    // Footfalls fire from the run (the graph layer's index is the event's layer).
    let events: Vec<&Value> = frames
        .iter()
        .flat_map(|f| f["events"].as_array().unwrap())
        .collect();
    assert!(
        events
            .iter()
            .any(|e| e["clip"] == "Run" && e["name"] == "foot_l" && e["layer"] == 0)
    );
}

#[test]
fn travel_sends_a_layer_to_a_state_and_waving_blends_in() {
    // At speed 2.2 the walk never turns into a run by itself (that takes 2.5), and a run
    // stays one (down to 2.0): only the travel gets there.
    let out = play(
        &repo("fixtures/default_character.glb"),
        "graphs/default_character.json",
        &[
            "--set",
            "0:speed=2.2",
            "--travel",
            "0.2:locomotion=run",
            "--set",
            "0.2:waving=true",
            "--seconds",
            "1",
        ],
    );
    let frames = out["frames"].as_array().unwrap();
    assert_eq!(frames.len(), 60);
    let last = &frames[59];
    assert_eq!(layer(last, 0)["state"], "run");
    assert_eq!(layer(last, 1)["state"], "on");
    assert_eq!(clip_weight(layer(last, 1), "Wave"), 1.0);
    assert_eq!(layer(&frames[11], 0)["state"], "move");
    assert_eq!(layer(&frames[12], 0)["state"], "run");
}

#[test]
fn a_trigger_makes_robot_expressive_jump() {
    let Some(robot) = common::shared_asset(
        "a_trigger_makes_robot_expressive_jump",
        "RobotExpressive/RobotExpressive.glb",
    ) else {
        return;
    };
    let out = play(
        &robot.display().to_string(),
        "graphs/robot_expressive.json",
        &[
            "--set",
            "0:speed=2",
            "--set",
            "0.5:jump",
            "--seconds",
            "1.5",
            "--fps",
            "30",
        ],
    );
    let frames = out["frames"].as_array().unwrap();
    let states: Vec<&str> = frames
        .iter()
        .map(|f| layer(f, 0)["state"].as_str().unwrap())
        .collect();
    // Walking and running share speed 2 before the jump.
    let first = layer(&frames[3], 0);
    assert_eq!(first["state"], "move");
    let walking = clip_weight(first, "Walking");
    assert!((walking - 0.8).abs() < 1e-5, "Walking weighs {walking}");
    assert!((clip_weight(first, "Running") - 0.2).abs() < 1e-5);
    // The trigger at 0.5 s fires the jump on the tick starting there, once.
    let jump = states
        .iter()
        .position(|&s| s == "jump")
        .expect("the jump never started");
    assert_eq!(frames[jump]["t"].as_f64().unwrap(), 16.0 / 30.0);
    let jumps = states
        .windows(2)
        .filter(|w| w[0] != "jump" && w[1] == "jump")
        .count();
    assert_eq!(jumps, 1, "{states:?}");
    assert!(clip_weight(layer(&frames[jump + 4], 0), "Jump") > 0.99);
}

#[test]
fn bad_graph_arguments_are_refused_by_name() {
    let character = repo("fixtures/default_character.glb");
    let graph = repo("graphs/default_character.json");
    for (extra, says) in [
        (&["--set", "0.5:sped=3"][..], "sped"),
        (&["--set", "speed=3"][..], "T:"),
        (&["--set=-1:speed=3"][..], "from 0 up"),
        (&["--set", "0:speed=fast"][..], "fast"),
        (&["--travel", "0:locomotion=fly"][..], "fly"),
        (&["--travel", "0:legs=run"][..], "legs"),
        (&["--root-motion", "Tail"][..], "Hips"),
    ] {
        let mut args = vec!["play", &character, "--graph", &graph];
        args.extend_from_slice(extra);
        let (ok, _, stderr) = common::skel(&args);
        assert!(!ok, "{extra:?} accepted");
        assert!(stderr.contains(says), "{extra:?}: {stderr}");
    }
    let robot = repo("graphs/robot_expressive.json");
    let (ok, _, stderr) = common::skel(&["play", &character, "--graph", &robot]);
    assert!(!ok);
    assert!(
        stderr.contains("Walking"),
        "an unknown clip is named: {stderr}"
    );
}

#[test]
fn pose_with_a_graph_shows_what_play_reports() {
    let character = repo("fixtures/default_character.glb");
    let graph = repo("graphs/default_character.json");
    let played = play(
        &character,
        "graphs/default_character.json",
        &["--set", "0.5:speed=3", "--seconds", "1.5"],
    );
    let last = layer(&played["frames"][89], 0);
    assert_eq!(last["clips"][0]["clip"], "Run");
    let run_time = last["clips"][0]["time"].as_f64().unwrap().to_string();
    // The graph posed at 1.5 s: Run alone, at the time play reports.
    let posed = common::pose(&[
        "pose",
        &character,
        "--graph",
        &graph,
        "--set",
        "0.5:speed=3",
        "--times",
        "0.25,1.5",
        "--json",
    ]);
    assert_eq!(posed["graphFile"], graph.as_str());
    assert_eq!(posed["frames"].as_array().unwrap().len(), 2);
    let clip = common::pose(&[
        "pose", &character, "--clip", "Run", "--times", &run_time, "--json",
    ]);
    let nodes = |v: &Value, f: usize| -> Vec<f64> {
        let n = &v["frames"][f]["nodes"];
        (0..24)
            .flat_map(|i| {
                n[i.to_string()]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|x| x.as_f64().unwrap())
                    .collect::<Vec<_>>()
            })
            .collect()
    };
    let diff = common::max_diff(&nodes(&posed, 1), &nodes(&clip, 0));
    assert!(diff < 1e-5, "the graph's pose differs from Run's by {diff}");
    // At 0.25 s the character stands: Idle, not Run.
    assert!(common::max_diff(&nodes(&posed, 0), &nodes(&clip, 0)) > 1e-2);
    // Times that go back are refused (a graph's state depends on its path).
    let (ok, _, stderr) =
        common::skel(&["pose", &character, "--graph", &graph, "--times", "1,0.5"]);
    assert!(!ok && stderr.contains("must not decrease"), "{stderr}");
    let (ok, _, stderr) = common::skel(&["pose", &character, "--graph", &graph, "--clip", "Run"]);
    assert!(!ok && stderr.contains("--clip"), "{stderr}");
}

#[test]
fn root_motion_is_extracted_from_the_graphs_player() {
    let Some(robot) = common::shared_asset(
        "root_motion_is_extracted_from_the_graphs_player",
        "RobotExpressive/RobotExpressive.glb",
    ) else {
        return;
    };
    let robot = robot.display().to_string();
    let run = ["--set", "0:speed=3", "--seconds", "1"];
    let total = |out: &Value| -> Vec<f64> {
        let t = &out["root_total"];
        [&t["translation"], &t["rotation"]]
            .iter()
            .flat_map(|v| v.as_array().unwrap().iter().map(|x| x.as_f64().unwrap()))
            .collect()
    };
    // Without the option nothing is extracted: the total stays the identity.
    let still = play(&robot, "graphs/robot_expressive.json", &run);
    assert_eq!(total(&still), [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]);
    // With it, the running body's sway on the ground plane and its yaw come out as motion.
    let moved = play(
        &robot,
        "graphs/robot_expressive.json",
        &[&run[..], &["--root-motion", "Body"]].concat(),
    );
    let t = total(&moved);
    assert_eq!(t[1], 0.0, "no vertical motion is extracted");
    assert!(t[0] != 0.0 && t[2] != 0.0 && t[4] != 0.0, "{t:?}");
}

/// Node `n`'s world translation at frame `f` of a `skel pose --json` report.
fn node_position(report: &Value, f: usize, n: usize) -> [f64; 3] {
    let m = report["frames"][f]["nodes"][n.to_string()]
        .as_array()
        .unwrap();
    [12, 13, 14].map(|i| m[i].as_f64().unwrap())
}

#[test]
fn a_vec3_target_set_on_the_command_line_moves_the_reaching_hand() {
    let Some(robot) = skel_test_support::shared_asset(
        "a_vec3_target_set_on_the_command_line_moves_the_reaching_hand",
        "RobotExpressive/RobotExpressive.glb",
    ) else {
        return;
    };
    let (asset, graph) = (
        robot.display().to_string(),
        repo("graphs/robot_reacts.json"),
    );
    let pose = |extra: &[&str]| {
        let mut args = vec![
            "pose",
            &asset,
            "--graph",
            &graph,
            "--handedness",
            "rh",
            "--times",
            "0.5",
            "--json",
        ];
        args.extend_from_slice(extra);
        let (ok, stdout, stderr) = common::skel(&args);
        assert!(ok, "skel {args:?}: {stderr}");
        serde_json::from_str::<Value>(&stdout).unwrap()
    };
    // Palm2.R (node 40) ends the reaching chain UpperArm.R → LowerArm.R → Palm2.R.
    let target = [-1.0, 3.4, 1.0];
    let reached = pose(&["--set", "0:reach=-1,3.4,1", "--set", "0:reach_weight=1"]);
    let hand = node_position(&reached, 0, 40);
    let miss = (0..3)
        .map(|i| (hand[i] - target[i]).powi(2))
        .sum::<f64>()
        .sqrt();
    // Soften 0.97 lets the hand fall a little short only near full reach; this target is well
    // inside it.
    assert!(
        miss < 1e-3,
        "the hand is at {hand:?}, {miss} from {target:?}"
    );
    let free = pose(&["--set", "0:reach=-1,3.4,1"]);
    let idle = node_position(&free, 0, 40);
    let moved = (0..3)
        .map(|i| (idle[i] - target[i]).powi(2))
        .sum::<f64>()
        .sqrt();
    assert!(
        moved > 0.1,
        "without weight the hand is already there ({moved})"
    );
    // A vector that is not three numbers is refused by name.
    let (ok, _, stderr) = common::skel(&[
        "pose",
        &asset,
        "--graph",
        &graph,
        "--set",
        "0:reach=1,2",
        "--times",
        "0.5",
    ]);
    assert!(!ok && stderr.contains("reach"), "{stderr}");
}

#[test]
fn terrain_puts_the_graphs_feet_on_a_raised_plane() {
    let (character, graph) = (
        repo("fixtures/default_character.glb"),
        repo("graphs/default_character_feet.json"),
    );
    // LeftToes (18) and RightToes (22) of the built-in character, over a second of walking.
    let lowest_toe = |extra: &[&str]| {
        let times: Vec<String> = (20..=60).map(|k| format!("{}", k as f32 / 60.0)).collect();
        let times = times.join(",");
        let mut args = vec![
            "pose",
            &character,
            "--graph",
            &graph,
            "--handedness",
            "rh",
            "--times",
            &times,
            "--json",
        ];
        args.extend_from_slice(extra);
        let (ok, stdout, stderr) = common::skel(&args);
        assert!(ok, "skel {args:?}: {stderr}");
        let report: Value = serde_json::from_str(&stdout).unwrap();
        let frames = report["frames"].as_array().unwrap().len();
        (0..frames)
            .flat_map(|f| [18, 22].map(|n| node_position(&report, f, n)[1]))
            .fold(f64::MAX, f64::min)
    };
    let placed = lowest_toe(&["--terrain", "plane:0,1,0,-0.08"]);
    let free = lowest_toe(&[]);
    assert!(
        free < 0.07,
        "the clip's toes never go below the raised floor ({free})"
    );
    assert!(
        placed >= 0.08 - 1e-3,
        "a toe went {} below the floor",
        0.08 - placed
    );
    // A ground the graph does not stand on, and a malformed plane, are refused by name.
    for (terrain, says) in [
        ("mesh:nowhere.glb", "nowhere"),
        ("plane:0,1,0", "four numbers"),
    ] {
        let (ok, _, stderr) = common::skel(&[
            "pose",
            &character,
            "--graph",
            &graph,
            "--terrain",
            terrain,
            "--times",
            "0.5",
        ]);
        assert!(!ok && stderr.contains(says), "{terrain}: {stderr}");
    }
}

#[test]
fn terrain_without_a_foot_graph_places_the_humanoids_feet() {
    let character = repo("fixtures/default_character.glb");
    let layers = std::env::temp_dir().join(format!("skel-walk-layers-{}.json", std::process::id()));
    std::fs::write(&layers, r#"{ "layers": [ { "clip": "Walk" } ] }"#).unwrap();
    let layers = layers.display().to_string();
    // `skel play --layers --terrain` runs (the humanoid's hips and legs found by name).
    let (ok, _, stderr) = common::skel(&[
        "play",
        &character,
        "--layers",
        &layers,
        "--terrain",
        "plane:0,1,0,-0.08",
        "--seconds",
        "0.5",
    ]);
    assert!(ok, "{stderr}");
    // A graph without foot placement takes the humanoid's feet: the toes stay on the floor.
    let graph = repo("graphs/default_character.json");
    let times: Vec<String> = (20..=60).map(|k| format!("{}", k as f32 / 60.0)).collect();
    let times = times.join(",");
    let (ok, stdout, stderr) = common::skel(&[
        "pose",
        &character,
        "--graph",
        &graph,
        "--handedness",
        "rh",
        "--terrain",
        "plane:0,1,0,-0.08",
        "--times",
        &times,
        "--json",
    ]);
    assert!(ok, "{stderr}");
    let report: Value = serde_json::from_str(&stdout).unwrap();
    let frames = report["frames"].as_array().unwrap().len();
    let lowest = (0..frames)
        .flat_map(|f| [18, 22].map(|n| node_position(&report, f, n)[1]))
        .fold(f64::MAX, f64::min);
    assert!(
        lowest >= 0.08 - 1e-3,
        "a toe went {} below the floor",
        0.08 - lowest
    );
    // Without a graph at all: tests/pose_terrain.rs.
    std::fs::remove_file(&layers).ok();
}
