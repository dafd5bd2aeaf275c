"""Legacy East Asian and Western encodings are read as what they are.

Short CJK texts are valid in several encodings at once (GBK, Big5, Shift-JIS, EUC-KR
share byte ranges); a statistical detector alone took 4 of 5 short GBK samples for
Korean (`你好，世界` shown as `콱봤，各썹`). The samples below are real text: classic
openings, poems, anthems, everyday phrases; the "held out" ones were not looked at
while the frequency tables were written.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from filewright import Workspace
from filewright.fs.cjk import guess_cjk
from filewright.fs.textfile import decode

ZH_SHORT = [
    "你好，世界",
    "今天天气很好。",
    "我们明天见",
    "中华人民共和国",
    "请输入密码",
    "文件已保存",
]
ZH_LONG = (
    "滚滚长江东逝水，浪花淘尽英雄。是非成败转头空。青山依旧在，几度夕阳红。"
    "白发渔樵江渚上，惯看秋月春风。一壶浊酒喜相逢。古今多少事，都付笑谈中。"
    "话说天下大势，分久必合，合久必分。周末七国分争，并入于秦。"
)
ZH_HELD_OUT = [
    "北京欢迎你",
    "这是一个测试文件",
    "春眠不觉晓，处处闻啼鸟。",
    "床前明月光，疑是地上霜。",
]
GB18030_ONLY = ["𠮷野家的牛肉饭", "欧元符号€与㐀字"]  # characters GBK cannot encode
TW_SHORT = ["你好，世界", "今天天氣很好。", "謝謝你的幫忙", "學而時習之，不亦說乎？", "檔案已儲存"]
TW_LONG = (
    "話說天下大勢，分久必合，合久必分。周末七國分爭，并入於秦。及秦滅之後，楚、漢分爭，"
    "又并入於漢。漢朝自高祖斬白蛇而起義，一統天下，後來光武中興，傳至獻帝，遂分為三國。"
)
TW_HELD_OUT = [
    "台北市政府",
    "這是一個測試檔案",
    "春眠不覺曉，處處聞啼鳥。",
    "舉頭望明月，低頭思故鄉。",
]
JA_SHORT = ["こんにちは", "吾輩は猫である。", "ありがとうございます", "東京都"]
JA_LONG = (
    "吾輩は猫である。名前はまだ無い。どこで生れたかとんと見当がつかぬ。何でも薄暗いじめじめ"
    "した所でニャーニャー泣いていた事だけは記憶している。吾輩はここで始めて人間というものを見た。"
)
JA_HELD_OUT = ["日本語のテキスト", "国境の長いトンネルを抜けると雪国であった。"]
KO_SHORT = ["안녕하세요", "감사합니다", "대한민국", "동해 물과 백두산이"]
KO_LONG = (
    "동해 물과 백두산이 마르고 닳도록 하느님이 보우하사 우리나라 만세. "
    "무궁화 삼천리 화려 강산 대한 사람 대한으로 길이 보전하세. "
    "남산 위에 저 소나무 철갑을 두른 듯 바람 서리 불변함은 우리 기상일세."
)
KO_HELD_OUT = ["한국어 문서입니다", "나는 나룻배 당신은 행인", "죽는 날까지 하늘을 우러러"]
W_SHORT = ["café", "naïve façade", "Grüße aus Köln", "It’s “quoted”"]
W_LONG = (
    "Longtemps, je me suis couché de bonne heure. Parfois, à peine ma bougie éteinte, "
    "mes yeux se fermaient si vite que je n’avais pas le temps de me dire : « Je m’endors. » "
    "Über allen Gipfeln ist Ruh, in allen Wipfeln spürest du kaum einen Hauch."
)

CASES = [
    *[("gbk", t, "gbk") for t in [*ZH_SHORT, ZH_LONG, *ZH_HELD_OUT]],
    *[("gb18030", t, "gbk") for t in ZH_HELD_OUT],  # GBK-compatible bytes: kept narrow
    *[("gb18030", t, "gb18030") for t in GB18030_ONLY],
    *[("big5", t, "big5") for t in [*TW_SHORT, TW_LONG, *TW_HELD_OUT]],
    *[("shift_jis", t, "cp932") for t in [*JA_SHORT, JA_LONG, *JA_HELD_OUT]],
    *[("euc_jp", t, "euc_jp") for t in [*JA_SHORT[:2], JA_LONG, *JA_HELD_OUT]],
    *[("euc_kr", t, "cp949") for t in [*KO_SHORT, KO_LONG, *KO_HELD_OUT]],
    *[("cp1252", t, "cp1252") for t in [*W_SHORT, W_LONG]],
]


@pytest.mark.parametrize(("written_in", "text", "detected"), CASES)
def test_real_text_is_decoded_as_written(written_in: str, text: str, detected: str) -> None:
    tf = decode(text.encode(written_in))
    assert tf.text == text
    assert tf.encoding.replace("-", "_") == detected
    assert 0.0 < tf.confidence <= 1.0


def test_the_reported_short_gbk_samples_are_chinese_not_korean() -> None:
    """The issue's case: `你好，世界` in GBK read as cp949 showed `콱봤，各썹`."""
    for text in ["你好，世界", "今天天气很好。", "我们明天见", "中华人民共和国", "学而时习之"]:
        assert decode(text.encode("gbk")).encoding == "gbk", text


def test_confidence_is_lower_when_two_languages_fit() -> None:
    """`경제` (Korean, "economy") is also two frequent Chinese characters in GBK: a tie,
    which Chinese wins, with a confidence that says it was close."""
    codec, close = guess_cjk("경제".encode("euc_kr")) or ("", 1.0)
    _codec, clear = guess_cjk(ZH_LONG.encode("gbk")) or ("", 0.0)
    assert codec == "gbk"
    assert close <= 0.5 < clear


@pytest.mark.parametrize("word", ["龙", "菊", "瓷器", "浏览"])
def test_locale_zh_weighs_chinese_further_for_tiny_texts(word: str) -> None:
    data = word.encode("gbk")
    assert data.decode("gbk") == word
    assert decode(data).text != word  # too little text: Korean fits at least as well
    assert decode(data, prefer_chinese=True).text == word


def test_locale_zh_reaches_reads_and_edits(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_bytes("龙\n".encode("gbk"))
    ws = Workspace(tmp_path, locale="zh")
    tools = ws.toolset("claude")
    read = tools.call("Read", {"file_path": str(tmp_path / "a.txt")})
    assert read.text == "1\t龙"
    edit = tools.call(
        "Edit", {"file_path": str(tmp_path / "a.txt"), "old_string": "龙", "new_string": "凤"}
    )
    assert edit.ok, edit.text
    assert (tmp_path / "a.txt").read_bytes() == "凤\n".encode("gbk")


@pytest.mark.parametrize("toolset", ["claude", "default"])
def test_a_short_gbk_file_reads_and_writes_back_in_gbk(tmp_path: Path, toolset: str) -> None:
    path = tmp_path / "greeting.txt"
    path.write_bytes("你好，世界\n".encode("gbk"))
    tools = Workspace(tmp_path).toolset(toolset)
    key = "file_path" if toolset == "claude" else "path"
    read = tools.call("Read" if toolset == "claude" else "read", {key: str(path)})
    assert "你好，世界" in read.text
    assert read.data.get("encoding_confidence", 0) > 0.5
    args = {key: str(path), "old_string": "世界", "new_string": "朋友"}
    edited = tools.call("Edit" if toolset == "claude" else "edit", args)
    assert edited.ok, edited.text
    assert path.read_bytes() == "你好，朋友\n".encode("gbk")
