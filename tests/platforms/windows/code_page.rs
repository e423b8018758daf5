//! The system code page under Wine: `tests/platforms/windows/win_codepage.c` on a Chinese Windows (GBK);
//! and the end user's messages in five code pages, in a language each holds
//! (`tests/platforms/windows/win_languages.c`).

use super::*;

use verify_core::codes;
use verify_core::Language;

pub(crate) fn code_page(arch: Arch) {
    let exe = compile(
        arch,
        &root().join("tests/platforms/windows/win_codepage.c"),
        "win_codepage",
    );
    let loader = loader(arch);
    let program = common::Program::new(
        common::sandbox(),
        serde_json::json!({"variables": {
            "greeting": "你好 & welcome", "名字": "值", "emoji": "😀"
        }}),
    );
    program.account("张三", "gbk-pass");
    // Wine takes the ANSI code page from the Unix locale: 936 (GBK) for zh_CN.
    let output = run_with(
        &loader,
        &exe,
        &[
            &program.sandbox.base_url(),
            &program.app_id,
            common::APP_KEY,
            "gbk-pass",
        ],
        &[("LANG", "zh_CN.UTF-8"), ("LC_ALL", "zh_CN.UTF-8")],
    );
    let stdout = assert_host_passes(&output, &format!("{arch:?} win_codepage.exe"));
    assert!(stdout.contains("GetACP 936"), "{arch:?}: {stdout}");
    // The user's UI language follows the locale too (0804: Chinese, PRC): the end user's
    // messages are Chinese by default, in GBK.
    assert!(
        stdout.contains("GetUserDefaultUILanguage 0804, verify_language zh-CN"),
        "{arch:?}: {stdout}"
    );
}

#[test]
pub(crate) fn system_code_page_is_gbk_on_chinese_windows_x64() {
    code_page(Arch::X64);
}

#[test]
pub(crate) fn system_code_page_is_gbk_on_chinese_windows_x86() {
    code_page(Arch::X86);
}

/// The language of a doctor's text report, by its title line.
fn doctor_language(text: &str) -> Option<Language> {
    Language::ALL.into_iter().find(|language| {
        let title = match language {
            Language::En => "verify doctor",
            Language::ZhCn => "verify 诊断",
            Language::ZhTw => "verify 診斷",
        };
        // The report opens with its first line (the cause), then the title line.
        text.lines().any(|line| line.starts_with(title))
    })
}

/// `tests/platforms/windows/win_languages.c`: in 936, 950, 54936, 65001 and 1252, every
/// end-user message and the doctor's text asked in each language are the table's words of one
/// language of the one asked for's `fallbacks`, the same for every code, and their bytes are
/// exactly that text in the code page (no `?` put in); Big5 gives zh-TW for zh-CN, 1252
/// English for Chinese, GB18030 and UTF-8 what was asked; `verify_language` says the
/// language given.
pub(crate) fn messages_readable(arch: Arch) {
    let exe = compile(
        arch,
        &root().join("tests/platforms/windows/win_languages.c"),
        "win_languages",
    );
    let output = run(&loader(arch), &exe, &[]);
    let stdout = assert_host_passes(&output, &format!("{arch:?} win_languages.exe"));
    let decode = |code_page: &str, hex: &str| -> String {
        let bytes: Vec<u8> = (0..hex.len())
            .step_by(2)
            .map(|at| u8::from_str_radix(&hex[at..at + 2], 16).expect("hex"))
            .collect();
        let number: u16 = code_page.parse().expect("a code page");
        let encoding = codepage::to_encoding(number).expect("a known code page");
        let text = encoding
            .decode_without_bom_handling_and_without_replacement(&bytes)
            .unwrap_or_else(|| panic!("{arch:?}: bytes not valid in {code_page}: {hex}"));
        let (again, _, unmappable) = encoding.encode(&text);
        assert!(
            !unmappable && again[..] == bytes[..],
            "{arch:?}: {code_page}: `{text}` is not what the bytes hold"
        );
        text.into_owned()
    };
    let asked = |tag: &str| Language::from_tag(tag).expect("a language tag");
    // (code page, language asked) -> the languages every message so far can be in, in the
    // order of the asked one's `fallbacks` (a message alike in two languages fits both).
    let mut candidates: BTreeMap<(String, String), Vec<Language>> = BTreeMap::new();
    let mut given: BTreeMap<(String, String), Language> = BTreeMap::new();
    let mut messages = 0;
    for line in stdout.lines() {
        let fields: Vec<&str> = line.split(' ').collect();
        match fields[..] {
            ["message", cp, lang, code, hex] => {
                let code: i32 = code.parse().expect("a code");
                let text = decode(cp, hex);
                let left = candidates
                    .entry((cp.to_owned(), lang.to_owned()))
                    .or_insert_with(|| asked(lang).fallbacks().to_vec());
                left.retain(|l| codes::user_message(code, *l) == text);
                assert!(
                    !left.is_empty(),
                    "{arch:?}: {cp} {lang} {code}: `{text}` is not the table's message in the \
                     language of the codes before it, nor in another that {lang} falls back to"
                );
                messages += 1;
            }
            ["language", cp, lang, tag] => {
                let key = (cp.to_owned(), lang.to_owned());
                let language = candidates[&key][0];
                given.insert(key, language);
                assert_eq!(tag, language.tag(), "{arch:?}: verify_language in {cp}");
            }
            ["doctor", cp, lang, hex] => {
                let text = decode(cp, hex);
                let language = given[&(cp.to_owned(), lang.to_owned())];
                assert_eq!(
                    doctor_language(&text),
                    Some(language),
                    "{arch:?}: {cp} {lang}: the doctor's text\n{text}"
                );
                assert!(!text.contains('?'), "{arch:?}: {cp} {lang}: a `?`\n{text}");
            }
            _ => {}
        }
    }
    assert!(
        messages > 5 * 3 * 60,
        "{arch:?}: {messages} messages read\n{stdout}"
    );
    use Language::{En, ZhCn, ZhTw};
    for (cp, lang, language) in [
        ("936", "zh-CN", ZhCn),
        ("950", "zh-CN", ZhTw),
        ("950", "zh-TW", ZhTw),
        ("54936", "zh-CN", ZhCn),
        ("54936", "zh-TW", ZhTw),
        ("65001", "zh-CN", ZhCn),
        ("1252", "zh-CN", En),
        ("1252", "zh-TW", En),
        ("1252", "en", En),
    ] {
        assert_eq!(
            given.get(&(cp.to_owned(), lang.to_owned())),
            Some(&language),
            "{arch:?}: code page {cp}, {lang} asked"
        );
    }
}

#[test]
pub(crate) fn messages_are_readable_in_every_code_page_x64() {
    messages_readable(Arch::X64);
}

#[test]
pub(crate) fn messages_are_readable_in_every_code_page_x86() {
    messages_readable(Arch::X86);
}
