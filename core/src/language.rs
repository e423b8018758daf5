//! The languages of the end-user messages (`codes::user_message`) and how a language tag or a
//! POSIX locale names one.
//!
//! Three are written: Simplified Chinese (`zh-CN`), Traditional Chinese (`zh-TW`) and English
//! (`en`). Any tag maps to one of them: Chinese of mainland China and Singapore, or in the
//! Simplified script, to `zh-CN`; of Taiwan, Hong Kong and Macao, or in the Traditional
//! script, to `zh-TW`; every other language to English.

/// A language of the end-user messages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Language {
    /// English.
    En,
    /// Simplified Chinese (mainland China, Singapore).
    ZhCn,
    /// Traditional Chinese (Taiwan, Hong Kong, Macao).
    ZhTw,
}

impl Language {
    /// Every language, in the order of the table's columns.
    pub const ALL: [Language; 3] = [Language::En, Language::ZhCn, Language::ZhTw];

    /// The language's tag: `"en"`, `"zh-CN"` or `"zh-TW"`.
    pub fn tag(self) -> &'static str {
        match self {
            Language::En => "en",
            Language::ZhCn => "zh-CN",
            Language::ZhTw => "zh-TW",
        }
    }

    /// The languages to try, in order, when a message must be written in a code page that may
    /// not hold every language (`verify_set_code_page` in the C ABI): this one, then for a
    /// Chinese reader the other Chinese, then English, whose messages are ASCII and fit every
    /// code page. Big5 (950) holds no Simplified Chinese: a zh-CN reader gets zh-TW there, and
    /// English where neither fits (1252).
    pub fn fallbacks(self) -> [Language; 3] {
        match self {
            Language::En => [Language::En, Language::ZhCn, Language::ZhTw],
            Language::ZhCn => [Language::ZhCn, Language::ZhTw, Language::En],
            Language::ZhTw => [Language::ZhTw, Language::ZhCn, Language::En],
        }
    }

    /// The language a BCP 47 tag (`zh-CN`, `zh-Hant-HK`, `en-US`) or a POSIX locale
    /// (`zh_CN.UTF-8`, `zh_TW.Big5@stroke`, `C`) names, case-insensitive; `None` for text
    /// that is neither (empty, longer than 64 bytes, or holding other characters than ASCII
    /// letters, digits, `-`, `_`, `.` and `@`). A well-formed tag of another language is
    /// English.
    pub fn from_tag(tag: &str) -> Option<Language> {
        let well_formed = !tag.is_empty()
            && tag.len() <= 64
            && tag
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'_' | b'.' | b'@'));
        if !well_formed {
            return None;
        }
        // The language and its subtags, without the POSIX encoding and modifier.
        let base = tag.split(['.', '@']).next().unwrap_or_default();
        let mut parts = base.split(['-', '_']).map(str::to_ascii_lowercase);
        if parts.next().as_deref() != Some("zh") {
            return Some(Language::En);
        }
        for part in parts {
            match part.as_str() {
                "hans" | "cn" | "sg" | "my" => return Some(Language::ZhCn),
                "hant" | "tw" | "hk" | "mo" => return Some(Language::ZhTw),
                _ => {}
            }
        }
        Some(Language::ZhCn)
    }

    /// The language of a Windows LANGID (`GetUserDefaultUILanguage`): Chinese (primary
    /// language 0x04) of Taiwan (0x0404), Hong Kong (0x0C04) and Macao (0x1404) is `zh-TW`,
    /// other Chinese `zh-CN`, every other language English.
    pub fn from_windows_langid(langid: u16) -> Language {
        match (langid & 0x3FF, langid) {
            (0x04, 0x0404 | 0x0C04 | 0x1404 | 0x7C04) => Language::ZhTw,
            (0x04, _) => Language::ZhCn,
            _ => Language::En,
        }
    }

    /// The language of the POSIX locale variables, in their order of precedence: the first
    /// of `LC_ALL`, `LC_MESSAGES` and `LANG` that is set and not empty names it (`C` and
    /// `POSIX` are English); English when none is set. `lookup` reads a variable.
    pub fn from_locale_variables(lookup: impl Fn(&str) -> Option<String>) -> Language {
        Language::from_locale_variables_or(lookup, || None)
    }

    /// [`Language::from_locale_variables`] when one of them is set (a terminal's explicit
    /// choice); else the language of the tag `preferred` gives (macOS's first preferred
    /// language, such as `zh-Hans-CN`), asked only then; English when it gives none or text
    /// that is not a tag.
    pub fn from_locale_variables_or(
        lookup: impl Fn(&str) -> Option<String>,
        preferred: impl FnOnce() -> Option<String>,
    ) -> Language {
        ["LC_ALL", "LC_MESSAGES", "LANG"]
            .into_iter()
            .find_map(|name| lookup(name).filter(|value| !value.is_empty()))
            .or_else(preferred)
            .map_or(Language::En, |value| {
                Language::from_tag(&value).unwrap_or(Language::En)
            })
    }

    /// The user's language, read from this process's environment and, on macOS, the system:
    /// the first of `LC_ALL`, `LC_MESSAGES` and `LANG` that is set (Linux, the BSDs, and a
    /// macOS terminal); else, on macOS, the first of the user's preferred languages
    /// (`CFLocaleCopyPreferredLanguages`, through `verify-machine-sys`: a program started
    /// from the Finder has no `LANG`); else English. No process is started.
    pub fn from_environment() -> Language {
        Language::from_locale_variables_or(
            |name| std::env::var(name).ok(),
            verify_machine_sys::preferred_language,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_and_locales_name_the_three_languages() {
        for (tag, language) in [
            ("zh-CN", Language::ZhCn),
            ("zh_CN.UTF-8", Language::ZhCn),
            ("zh_CN.GB18030", Language::ZhCn),
            ("ZH-cn", Language::ZhCn),
            ("zh", Language::ZhCn),
            ("zh-Hans", Language::ZhCn),
            ("zh-Hans-HK", Language::ZhCn),
            ("zh_SG", Language::ZhCn),
            ("zh-TW", Language::ZhTw),
            ("zh_TW.Big5", Language::ZhTw),
            ("zh_HK.UTF-8", Language::ZhTw),
            ("zh-MO", Language::ZhTw),
            ("zh-Hant", Language::ZhTw),
            ("zh-Hant-CN", Language::ZhTw),
            ("en", Language::En),
            ("en_US.UTF-8", Language::En),
            ("C", Language::En),
            ("C.UTF-8", Language::En),
            ("POSIX", Language::En),
            ("fr_FR@euro", Language::En),
            ("zhx", Language::En),
            // macOS's preferred languages (CFLocaleCopyPreferredLanguages): language,
            // script, region.
            ("zh-Hans-CN", Language::ZhCn),
            ("zh-Hans-SG", Language::ZhCn),
            ("zh-Hans-TW", Language::ZhCn),
            ("zh-Hant-TW", Language::ZhTw),
            ("zh-Hant-HK", Language::ZhTw),
            ("zh-Hant-MO", Language::ZhTw),
            ("zh-HK", Language::ZhTw),
            ("yue-Hant-HK", Language::En),
            ("en-US", Language::En),
            ("en-GB", Language::En),
            ("ja-JP", Language::En),
        ] {
            assert_eq!(Language::from_tag(tag), Some(language), "{tag}");
        }
        for bad in ["", " zh", "zh CN", "中文", "zh/CN", &"z".repeat(65)] {
            assert_eq!(Language::from_tag(bad), None, "{bad:?}");
        }
        for language in Language::ALL {
            assert_eq!(Language::from_tag(language.tag()), Some(language));
        }
    }

    #[test]
    fn fallbacks_start_with_the_language_and_end_in_english() {
        for language in Language::ALL {
            let order = language.fallbacks();
            assert_eq!(order[0], language);
            assert!(order.contains(&Language::En));
            for other in Language::ALL {
                assert!(order.contains(&other), "{language:?}: {order:?}");
            }
        }
        assert_eq!(
            Language::ZhCn.fallbacks(),
            [Language::ZhCn, Language::ZhTw, Language::En]
        );
        assert_eq!(
            Language::ZhTw.fallbacks(),
            [Language::ZhTw, Language::ZhCn, Language::En]
        );
    }

    #[test]
    fn windows_langids() {
        assert_eq!(Language::from_windows_langid(0x0804), Language::ZhCn);
        assert_eq!(Language::from_windows_langid(0x1004), Language::ZhCn);
        assert_eq!(Language::from_windows_langid(0x0404), Language::ZhTw);
        assert_eq!(Language::from_windows_langid(0x0C04), Language::ZhTw);
        assert_eq!(Language::from_windows_langid(0x1404), Language::ZhTw);
        assert_eq!(Language::from_windows_langid(0x0409), Language::En);
        assert_eq!(Language::from_windows_langid(0x0411), Language::En);
        assert_eq!(Language::from_windows_langid(0), Language::En);
    }

    #[test]
    fn locale_variables_in_posix_order() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(key, _)| *key == name)
                    .map(|(_, value)| (*value).to_owned())
            }
        };
        assert_eq!(Language::from_locale_variables(env(&[])), Language::En);
        assert_eq!(
            Language::from_locale_variables(env(&[("LANG", "zh_CN.UTF-8")])),
            Language::ZhCn
        );
        assert_eq!(
            Language::from_locale_variables(env(&[
                ("LANG", "zh_CN.UTF-8"),
                ("LC_MESSAGES", "zh_TW.UTF-8")
            ])),
            Language::ZhTw
        );
        assert_eq!(
            Language::from_locale_variables(env(&[("LANG", "zh_CN.UTF-8"), ("LC_ALL", "C")])),
            Language::En
        );
        assert_eq!(
            Language::from_locale_variables(env(&[("LANG", "zh_CN.UTF-8"), ("LC_ALL", "")])),
            Language::ZhCn
        );
        assert_eq!(
            Language::from_locale_variables(env(&[("LANG", "中文")])),
            Language::En
        );

        // macOS: a set variable wins over the preferred language, which is asked only when
        // none is set.
        let unasked = || -> Option<String> { panic!("the preferred language was asked") };
        assert_eq!(
            Language::from_locale_variables_or(env(&[("LANG", "en_US.UTF-8")]), unasked),
            Language::En
        );
        assert_eq!(
            Language::from_locale_variables_or(env(&[("LC_ALL", "zh_TW.UTF-8")]), unasked),
            Language::ZhTw
        );
        for (preferred, language) in [
            (Some("zh-Hans-CN"), Language::ZhCn),
            (Some("zh-Hant-TW"), Language::ZhTw),
            (Some("zh-Hant-HK"), Language::ZhTw),
            (Some("en-US"), Language::En),
            (Some("中文"), Language::En),
            (None, Language::En),
        ] {
            let read = || preferred.map(str::to_owned);
            assert_eq!(
                Language::from_locale_variables_or(env(&[]), read),
                language,
                "{preferred:?}"
            );
            assert_eq!(
                Language::from_locale_variables_or(env(&[("LANG", "")]), read),
                language,
                "an empty LANG is not set: {preferred:?}"
            );
        }
    }
}
