//! Saving, renaming, duplicating, deleting and importing in a folder of their own, with
//! the real OS keyring under a service name of their own (keyutils on Linux).

use super::*;
use crate::secrets::Secret;

const HEADER: &str = "# test header\n";

fn store(dir: &Path, tag: &str) -> ProfileStore {
    let service = format!("dbdyno-test-store-{tag}-{}", std::process::id());
    ProfileStore::new(dir.join("profiles"), SecretStore::with_service(service))
}

#[test]
fn save_writes_a_loadable_file_and_refuses_a_taken_or_bad_name() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path(), "save");
    let mut p = Profile::named("idc");
    p.description = "the data centre".into();
    let written = s.save(&p, None, HEADER).unwrap();
    let path = dir.path().join("profiles/idc.toml");
    assert_eq!(written.path.as_deref(), Some(path.as_path()));
    assert_eq!(written.profile, p);
    let text = std::fs::read_to_string(&path).unwrap();
    assert!(text.starts_with(HEADER), "{text}");
    assert_eq!(crate::load_file(&path).unwrap().profile, p);
    assert!(s.has("idc").unwrap());

    // Saving it again under its own name replaces it; a new one may not take the name.
    p.description = "changed".into();
    s.save(&p, Some("idc"), HEADER).unwrap();
    assert!(matches!(
        s.save(&p, None, HEADER),
        Err(StoreError::Taken { name }) if name == "idc"
    ));
    assert!(matches!(
        s.free_name(" idc "),
        Err(StoreError::Taken { .. })
    ));
    assert_eq!(s.free_name(" cloud ").unwrap(), "cloud");
    assert!(matches!(
        s.free_name("a/b"),
        Err(StoreError::BadName { .. })
    ));

    let mut bad = Profile::named("bad");
    bad.labels = vec![" ".into()];
    let e = s.save(&bad, None, HEADER).unwrap_err();
    assert!(
        matches!(&e, StoreError::Invalid { problems, .. } if problems[0].field == "labels[0]"),
        "{e}"
    );
    assert!(!s.has("bad").unwrap(), "nothing written");
}

#[test]
fn a_rename_moves_the_file_and_the_secrets_a_duplicate_copies_no_secret() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path(), "rename");
    let secret = Secret::new(format!("Rename-{}", std::process::id()));
    s.save(&Profile::named("old"), None, HEADER).unwrap();
    s.secrets
        .set("old", SecretKind::MysqlPassword, &secret)
        .unwrap();

    s.save(&Profile::named("new"), Some("old"), HEADER).unwrap();
    assert!(!s.has("old").unwrap() && s.has("new").unwrap());
    assert_eq!(
        s.secrets.get("old", SecretKind::MysqlPassword).unwrap(),
        None
    );
    assert_eq!(
        s.secrets.get("new", SecretKind::MysqlPassword).unwrap(),
        Some(secret)
    );

    let copy = s
        .duplicate(&Profile::named("new"), " copy ", HEADER)
        .unwrap();
    assert_eq!(copy.profile.name, "copy");
    assert_eq!(
        s.secrets.get("copy", SecretKind::MysqlPassword).unwrap(),
        None
    );
    assert!(matches!(
        s.duplicate(&Profile::named("new"), "copy", HEADER),
        Err(StoreError::Taken { .. })
    ));

    s.delete("new").unwrap();
    assert!(!s.has("new").unwrap());
    assert_eq!(
        s.secrets.get("new", SecretKind::MysqlPassword).unwrap(),
        None
    );
    assert!(matches!(
        s.delete("local-sandbox"),
        Err(StoreError::NotUserProfile { .. })
    ));
    s.delete("copy").unwrap();
}

#[test]
fn a_seed_config_becomes_a_profile_with_its_comments_and_the_password_in_the_keyring() {
    let dir = tempfile::tempdir().unwrap();
    let s = store(dir.path(), "seed");
    let pw = format!("Seed-{}", std::process::id());
    let text =
        format!("MYSQL_HOST=127.0.0.1\nMYSQL_PASSWORD={pw}\nTABLES=16  # Number of test tables\n");
    let imp = s
        .import_seed_config(&text, "benchmark_config.conf", " seed ", HEADER)
        .unwrap();
    assert!(matches!(imp.password, PasswordOutcome::InKeyring));
    let path = imp.loaded.path.clone().unwrap();
    let written = std::fs::read_to_string(&path).unwrap();
    assert!(!written.contains(&pw), "{written}");
    assert!(
        written.contains("tables = 16  # Number of test tables"),
        "{written}"
    );
    assert_eq!(
        s.secrets
            .get("seed", SecretKind::MysqlPassword)
            .unwrap()
            .map(|p| p.expose().to_string()),
        Some(pw)
    );
    assert!(matches!(
        s.import_seed_config(&text, "b.conf", "seed", HEADER),
        Err(StoreError::Taken { .. })
    ));
    s.delete("seed").unwrap();

    // To a file of the caller's choice, the password dropped.
    let out = dir.path().join("out.toml");
    let imp = import_seed_config_to(&out, &text, "b.conf", "out", HEADER, None).unwrap();
    assert!(matches!(imp.password, PasswordOutcome::Dropped));
    assert_eq!(crate::load_file(&out).unwrap().profile.name, "out");
    let e = import_seed_config_to(&out, "hello\n", "b.conf", "out", HEADER, None).unwrap_err();
    assert!(matches!(e, StoreError::Profile(_)), "{e}");
}
