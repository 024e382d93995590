//! The Linux keyutils store for [`crate::secrets`], in the user keyring.
//!
//! Why not keyring's own keyutils store: it adds each key to the session keyring and
//! then links it into the persistent keyring; where the kernel refuses that link (it does
//! in containers such as our CI's, with EACCES), every store fails, reported as "no
//! entry". The user keyring (`@u`) is what the brief asks for: shared by every process of
//! the user, kept while the user has processes (in memory only, gone at reboot).
//! It plugs into the keyring crate as a credential, so `SecretStore` stays one API.

use std::any::Any;

use keyring::credential::CredentialApi;
use linux_keyutils::{KeyError, KeyRing, KeyRingIdentifier};

#[derive(Debug)]
pub struct UserKeyringCredential {
    /// `dbdyno:<service>:<account>`
    description: String,
}

impl UserKeyringCredential {
    pub fn new(service: &str, account: &str) -> UserKeyringCredential {
        UserKeyringCredential {
            description: format!("{service}:{account}"),
        }
    }

    fn ring() -> keyring::Result<KeyRing> {
        KeyRing::from_special_id(KeyRingIdentifier::User, true).map_err(to_keyring)
    }
}

fn to_keyring(e: KeyError) -> keyring::Error {
    match e {
        KeyError::KeyDoesNotExist | KeyError::KeyExpired | KeyError::KeyRevoked => {
            keyring::Error::NoEntry
        }
        other => keyring::Error::PlatformFailure(Box::new(other)),
    }
}

impl CredentialApi for UserKeyringCredential {
    fn set_secret(&self, secret: &[u8]) -> keyring::Result<()> {
        // add_key replaces the payload of a key with the same description.
        Self::ring()?
            .add_key(&self.description, secret)
            .map_err(to_keyring)?;
        Ok(())
    }

    fn get_secret(&self) -> keyring::Result<Vec<u8>> {
        let key = Self::ring()?
            .search(&self.description)
            .map_err(to_keyring)?;
        key.read_to_vec().map_err(to_keyring)
    }

    fn delete_credential(&self) -> keyring::Result<()> {
        let key = Self::ring()?
            .search(&self.description)
            .map_err(to_keyring)?;
        key.invalidate().map_err(to_keyring)
    }

    fn as_any(&self) -> &dyn Any {
        self
    }
}
