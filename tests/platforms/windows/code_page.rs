//! The system code page under Wine: `tests/platforms/windows/win_codepage.c` on a Chinese Windows (GBK).

use super::*;

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
