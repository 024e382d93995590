//! Writing profiles: a user profile's file (`<profiles dir>/<name>.toml`), saving one
//! (checked, and proved to load back, before the file is touched), renaming it with its
//! keyring entries, duplicating under a free name, deleting, and the seed toolkit's
//! config imported as a profile. The CLI's `import config` and the app's Environments
//! screen write profiles through here only.
//!
//! Non-goals: what goes into a profile (the shells' forms, [`crate::seed_config`]),
//! listing and finding profiles ([`crate::catalog`]), keeping secrets
//! ([`crate::secrets`]): here secrets only move between keyring entries, never into a
//! file. Messages say what is wrong; each shell adds how to fix it in its own terms.

use std::path::{Path, PathBuf};

use crate::render::{to_toml, Comments};
use crate::secrets::Secret;
use crate::{
    validate, Loaded, Problem, Profile, ProfileError, SecretError, SecretKind, SecretStore,
};

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// Not usable as a file and keyring name.
    #[error("profile name '{name}': {reason}")]
    BadName { name: String, reason: String },

    #[error("a profile named '{name}' exists already")]
    Taken { name: String },

    /// Shipped examples and missing names are not the user's to change.
    #[error("'{name}' is not one of your profiles")]
    NotUserProfile { name: String },

    /// The profile does not pass [`validate::check`]; nothing was written.
    #[error("profile '{name}' is not valid: {}", list(problems))]
    Invalid {
        name: String,
        problems: Vec<Problem>,
    },

    #[error("cannot write {}: {source}", path.display())]
    Write {
        path: PathBuf,
        source: std::io::Error,
    },

    #[error("cannot delete {}: {source}", path.display())]
    Remove {
        path: PathBuf,
        source: std::io::Error,
    },

    #[error(transparent)]
    Profile(#[from] ProfileError),

    #[error(transparent)]
    Secret(#[from] SecretError),
}

fn list(problems: &[Problem]) -> String {
    let each: Vec<String> = problems
        .iter()
        .map(|p| format!("{}: {}", p.field, p.message))
        .collect();
    each.join("; ")
}

/// Renders `p` with `header` (comment lines) and `comments` (by dotted key), checks that
/// the text loads back as the same-named profile, then writes it to `path`, replacing
/// any file there. The directory must exist.
pub fn write_profile_file(
    path: &Path,
    p: &Profile,
    header: &str,
    comments: &Comments,
) -> Result<Loaded, StoreError> {
    let text = format!("{header}{}", to_toml(p, comments));
    let mut loaded = crate::load_str(&text, &path.display().to_string(), &p.name)?;
    std::fs::write(path, text).map_err(|source| StoreError::Write {
        path: path.to_path_buf(),
        source,
    })?;
    loaded.path = Some(path.to_path_buf());
    Ok(loaded)
}

/// What became of a seed config's MYSQL_PASSWORD.
#[derive(Debug)]
pub enum PasswordOutcome {
    /// The file had none.
    NotInFile,
    /// The caller asked for no keyring: it is nowhere.
    Dropped,
    InKeyring,
    /// The keyring did not take it: it is nowhere.
    KeyringRefused(SecretError),
}

/// A seed config written as a profile.
#[derive(Debug)]
pub struct SeedImported {
    pub loaded: Loaded,
    /// What was skipped or changed, for the user.
    pub notices: Vec<String>,
    pub password: PasswordOutcome,
}

fn keep_password(
    secrets: Option<&SecretStore>,
    name: &str,
    password: Option<Secret>,
) -> PasswordOutcome {
    match (password, secrets) {
        (None, _) => PasswordOutcome::NotInFile,
        (Some(_), None) => PasswordOutcome::Dropped,
        (Some(p), Some(s)) => match s.set(name, SecretKind::MysqlPassword, &p) {
            Ok(()) => PasswordOutcome::InKeyring,
            Err(e) => PasswordOutcome::KeyringRefused(e),
        },
    }
}

/// Converts the seed config `text` (read from a file named `file`) into profile `name`,
/// written to `path` (replacing it) with the config's comments; its password goes into
/// `secrets`, or nowhere when that is None.
pub fn import_seed_config_to(
    path: &Path,
    text: &str,
    file: &str,
    name: &str,
    header: &str,
    secrets: Option<&SecretStore>,
) -> Result<SeedImported, StoreError> {
    let imp = crate::seed_config::import_seed_config(text, file, name)?;
    let loaded = write_profile_file(path, &imp.profile, header, &imp.comments)?;
    Ok(SeedImported {
        loaded,
        notices: imp.notices,
        password: keep_password(secrets, name, imp.password),
    })
}

/// The user's profiles: one TOML file each in a folder, their secrets in a keyring.
#[derive(Debug, Clone)]
pub struct ProfileStore {
    dir: PathBuf,
    secrets: SecretStore,
}

impl ProfileStore {
    /// The user's profile folder ([`crate::catalog::user_profiles_dir`]) and the OS keyring.
    pub fn user() -> Result<ProfileStore, StoreError> {
        Ok(ProfileStore::new(
            crate::catalog::user_profiles_dir()?,
            SecretStore::new(),
        ))
    }

    pub fn new(dir: impl Into<PathBuf>, secrets: SecretStore) -> ProfileStore {
        ProfileStore {
            dir: dir.into(),
            secrets,
        }
    }

    /// The file of user profile `name` (which may not exist).
    pub fn file(&self, name: &str) -> Result<PathBuf, StoreError> {
        validate::check_name(name).map_err(|reason| StoreError::BadName {
            name: name.to_string(),
            reason,
        })?;
        Ok(self.dir.join(format!("{name}.toml")))
    }

    /// Whether `name` is one of the user's profiles (not a shipped example).
    pub fn has(&self, name: &str) -> Result<bool, StoreError> {
        Ok(self.file(name)?.is_file())
    }

    /// `name` trimmed, when it can name a new user profile: valid as a file and keyring
    /// name, and not taken.
    pub fn free_name(&self, name: &str) -> Result<String, StoreError> {
        let name = name.trim();
        if self.has(name)? {
            return Err(StoreError::Taken {
                name: name.to_string(),
            });
        }
        Ok(name.to_string())
    }

    /// Writes user profile `p` under its name with `header`, replacing its file.
    pub fn write(&self, p: &Profile, header: &str) -> Result<Loaded, StoreError> {
        self.write_with(p, header, &Comments::new())
    }

    fn write_with(
        &self,
        p: &Profile,
        header: &str,
        comments: &Comments,
    ) -> Result<Loaded, StoreError> {
        let problems = validate::check(p);
        if !problems.is_empty() {
            return Err(StoreError::Invalid {
                name: p.name.clone(),
                problems,
            });
        }
        let path = self.file(&p.name)?;
        std::fs::create_dir_all(&self.dir).map_err(|source| StoreError::Write {
            path: self.dir.clone(),
            source,
        })?;
        write_profile_file(&path, p, header, comments)
    }

    /// Saves `p`, which was user profile `previous` (None: a new one). A new name must
    /// be free; a rename moves the keyring entries to the new name and removes the old
    /// file (an example saved under a new name stays as it is).
    pub fn save(
        &self,
        p: &Profile,
        previous: Option<&str>,
        header: &str,
    ) -> Result<Loaded, StoreError> {
        let name = p.name.as_str();
        if previous != Some(name) && self.has(name)? {
            return Err(StoreError::Taken {
                name: name.to_string(),
            });
        }
        let written = self.write(p, header)?;
        if let Some(old) = previous.filter(|old| *old != name) {
            if self.has(old)? {
                for kind in SecretKind::ALL {
                    if let Ok(Some(s)) = self.secrets.get(old, kind) {
                        self.secrets.set(name, kind, &s)?;
                        // A copy left behind is harmless; the profile is renamed anyway.
                        let _ = self.secrets.delete(old, kind);
                    }
                }
                self.remove_file(old)?;
            }
        }
        Ok(written)
    }

    /// Writes a copy of `source` named `new_name` (which must be free). Secrets are not
    /// copied: the copy asks for its own.
    pub fn duplicate(
        &self,
        source: &Profile,
        new_name: &str,
        header: &str,
    ) -> Result<Loaded, StoreError> {
        let mut p = source.clone();
        p.name = self.free_name(new_name)?;
        self.write(&p, header)
    }

    /// Deletes user profile `name` and its keyring entries.
    pub fn delete(&self, name: &str) -> Result<(), StoreError> {
        if !self.has(name)? {
            return Err(StoreError::NotUserProfile {
                name: name.to_string(),
            });
        }
        for kind in SecretKind::ALL {
            // An entry the keyring cannot delete must not keep the file.
            let _ = self.secrets.delete(name, kind);
        }
        self.remove_file(name)
    }

    fn remove_file(&self, name: &str) -> Result<(), StoreError> {
        let path = self.file(name)?;
        std::fs::remove_file(&path).map_err(|source| StoreError::Remove { path, source })
    }

    /// The seed config `text` (from a file named `file`) as a new user profile `name`
    /// (which must be free), its password into the keyring.
    pub fn import_seed_config(
        &self,
        text: &str,
        file: &str,
        name: &str,
        header: &str,
    ) -> Result<SeedImported, StoreError> {
        let name = self.free_name(name)?;
        let imp = crate::seed_config::import_seed_config(text, file, &name)?;
        let loaded = self.write_with(&imp.profile, header, &imp.comments)?;
        Ok(SeedImported {
            loaded,
            notices: imp.notices,
            password: keep_password(Some(&self.secrets), &name, imp.password),
        })
    }
}

#[cfg(test)]
mod tests;
