"""Which East Asian encoding a byte string is written in, judged by what it says.

GBK, Big5, Shift-JIS, EUC-JP and EUC-KR share byte ranges, so a short text is often
valid in several of them; statistical detectors then guess the wrong one (a short GBK
text read as Korean shows `콱봤` for `你好`). Here each candidate decoding is scored by
how much of its non-ASCII text is made of characters that are common in the language
the encoding is for: frequent Chinese characters for GBK/GB18030/Big5, kana and frequent
kanji for Japanese, frequent Hangul syllables for Korean. Mojibake is made of rare
characters, real text of common ones. Pure functions; no I/O.
"""

from __future__ import annotations

import re
import unicodedata

# The most frequent Chinese characters (simplified and traditional forms together).
_COMMON_SIMPLIFIED = (
    "的一是不了人我在有他这中大来上国个到说们为子和你地出道也时年得就那要下以生会自着去之"
    "过家学对可她里后小么心多天而能好都然没日于起还发成事只作当想看文无开手十用主行方又如"
    "前所本见经头面公同三已老从动两长知民样现分将外但身些与高意进把法此实回二理美点月明其"
    "种声全工己话儿者向情部正名定女问力机给等几很业最间新什打便位因重被走电四第门相次东政"
    "海口使教西再平真听世气信北少关并内加化由却代军产入先山五太水万市眼体别处总才场师书比"
    "住员九笑性通目华报立马命张活难神数件安表原车白应路期叫死常提感金何更反合放做系计或司"
    "利受光王果亲界及今京务制解各任至清物台象记边共风战干接它许八特觉望直服毛林题建南度统"
    "色字请交爱让认算论百吃义科怎元社术结六功指思非流每青管夫连远资队跟带花快条院变联言权"
    "往展该领传近留红治决周保达办运武半候七必城父强步完革深区即求品士转量空甚众技轻程告江"
    "语英基派满式李息写呢识极令黄德收脸钱党倒未持取设始版双历越史商千片容研像找友孩站广改"
    "议形委早房音火际则首单据导影失拿网香似斯专石若兵弟谁校读志飞观争究包组造落视济喜离虽"
    "坏兴且证跑怕您吗吧啊哪些谢欢迎朋今昨明晚午饭菜茶酒钱块买卖店送收到输密码保存删除文档"
    "请输入确认取消设置登录注册用户名称错误成功失败完成系统网络服务器数据库程序代码函数变量"
    "测试版本更新安装下载上传复制粘贴选择打开关闭窗口页面按钮链接搜索查找替换编辑修改格式"
    "人民共和国中华省市县区镇村街路号楼室电话邮件地址公司企业学校医院银行政府部门工作生活"
)
_COMMON_TRADITIONAL = (
    "這來國個說們為時會著過學對裡後麼沒於還發當開無見經頭從動兩長樣現將與進實點種聲話兒問"
    "機給幾業間電東門關內軍產萬體別處總場師書員報馬張難數車應覺題統請愛讓認論義術結連遠資"
    "隊帶條院變聯權領傳紅決達辦運強區轉輕語滿寫識極黃錢黨設雙歷廣議飛觀爭組視濟離雖壞興證"
    "謝歡迎買賣輸碼儲存檔案確認設置錄註冊誤敗統網絡務數據庫碼變測試繼續準備開始結束問題讀聽"
)
COMMON_HAN = frozenset(_COMMON_SIMPLIFIED + _COMMON_TRADITIONAL) - frozenset("，。？")

# The frequent Hangul syllables of modern Korean (about 600 of KS X 1001's 2350).
COMMON_HANGUL = frozenset(
    "이다는의에하가을를고지기서도로한나사리자수시대어인정보우있것들면아요내그해적게주제전상"
    "되마만과부성소일거중여조원라무동방계장국경비미생니신위요공같없할구문연오모물화학세실업"
    "개회러와후안말선관명진행민금통당유용발간식사람년많때습니까세요니다"
    "녕께서또며및더잘못왜어떻게누구언제어디왔갔했였겠든던려져럼처럼까지부터에게한테께요죠네"
    "가각간갈감갑강개객거건걸검게겨격견결경계고곡곤골공과관광괴교구국군굴권귀규균그극근글금급"
    "기긴길김까깨꼬꾸꿈끝나낙난날남납낭내냉너널넘네녀년념녕노녹논놀농높뇌누눈느는늘능늦니님다"
    "단달담답당대댁더덕던덜데도독돈돌동돼되된될두둘뒤드득든들듯등디따딸때떠떤떻또뚜뜻라락란람"
    "랑래략량러럼렇레려력련렬령례로록론료루류륙률르른를름릇리린림립마막만많말맑망매맥머먹먼멀"
    "메며면명몇모목몸못무묵문물므미민밀바박반받발밝밤방배백버번벌범법벽변별병보복본볼봉부북분"
    "불붉비빌빛빠빨뻐뿐사산살삼상새색생서석선설섬성세소속손솔송쇠수숙순술숨쉬스슬습승시식신실"
    "심십싸쓰씨아악안알암압앞애액야약양어억언얼엄업없었에여역연열염엽영예오옥온올옷와완왕외요"
    "욕용우운울움웃원월위유육윤으은을음응의이익인일임입있잊자작잔잘잠장재저적전절점접정제조족"
    "존졸종좋좌죄주죽준줄중즉즐증지직진질집짓짜째쪽찌차착찬찰참창채책처천철청체초촌총최추축출"
    "춤충취측층치친칠침칸커컴케코크큰클키타탁탄탈탐탑태택터턴테토통퇴투특틀티파판팔패퍼편평폐"
    "포폭표푸품풍프피필하학한할함합항해핵행향허험혀현혈협형혜호혹혼홍화확환활황회획효후훈훨휘"
    "휴흐흑흔흘흙흥희흰히힘"
)

_CHINESE = ("gbk", "gb18030", "big5")
_JAPANESE = ("cp932", "euc_jp")
_KOREAN = ("cp949",)
CANDIDATES = _CHINESE + _JAPANESE + _KOREAN
# With `prefer_chinese` (locale zh) Chinese wins closer calls: in a short text (a few
# characters, where nothing else can decide) any decoding into frequent Chinese
# characters; in a longer one, where the text itself is evidence, by a margin.
CHINESE_BONUS = 0.15
CHINESE_BONUS_SHORT = 0.5
SHORT_LETTERS = 8
MIN_SCORE = 0.5


def _is_kana(ch: str) -> bool:
    return "\u3041" <= ch <= "\u30ff"  # hiragana and full-width katakana


def _is_hangul(ch: str) -> bool:
    return "\uac00" <= ch <= "\ud7a3"


def _counted(ch: str) -> bool:
    """Letters that tell a language apart (not ASCII, not punctuation or symbols)."""
    return ord(ch) > 0x7F and unicodedata.category(ch).startswith("L")


def _in_range(ch: str, codec: str, low: int, high: int) -> bool:
    """True when `ch`'s first byte in `codec` lies in [low, high]: the charts order
    characters by frequency class (GB2312 level 1 holds the 3755 most used characters,
    Big5 A440-C67E its 5401 frequent ones, JIS X 0208 level 1 its 2965 common kanji)."""
    try:
        lead = ch.encode(codec)[0]
    except UnicodeEncodeError:
        return False
    return low <= lead <= high


def _common_chinese(ch: str, codec: str) -> bool:
    if codec == "big5":
        return _in_range(ch, "big5", 0xA4, 0xC6)
    return _in_range(ch, "gb2312", 0xB0, 0xD7)


_WORD_SPACING = re.compile(r"[\uac00-\ud7a3]{1,6} [\uac00-\ud7a3]")


def language_score(text: str, codec: str) -> float:
    """How much `text` reads like real text in `codec`'s language, 0..1 (0.0 when it has
    no non-ASCII letters).

    Chinese: the share of letters from the chart's frequent class, averaged with the
    share among the most frequent characters (Korean read as GBK also lands in GB2312's
    level 1, but on its rarer characters). Japanese: kana and level-1
    kanji (kanji alone count half). Korean:
    frequent Hangul syllables, plus word spacing (Korean separates words by spaces;
    Chinese and Japanese do not).
    """
    letters = [ch for ch in text if _counted(ch)]
    if not letters:
        return 0.0
    n = len(letters)
    if codec in _CHINESE:
        frequent_class = sum(_common_chinese(ch, codec) for ch in letters) / n
        most_frequent = sum(ch in COMMON_HAN for ch in letters) / n
        return (frequent_class + most_frequent) / 2
    if codec in _JAPANESE:
        kana = sum(_is_kana(ch) for ch in letters) / n
        kanji = sum(_in_range(ch, "euc_jp", 0xB0, 0xCF) for ch in letters) / n
        # Japanese prose is rarely without kana; kanji alone (a name, a heading) counts half.
        return kana + kanji if kana else kanji / 2
    common = sum(_is_hangul(ch) and ch in COMMON_HANGUL for ch in letters) / n
    hangul = sum(_is_hangul(ch) for ch in letters) / n
    spaced = 0.25 if hangul > 0.9 and _WORD_SPACING.search(text) else 0.0
    return min(1.0, common + spaced)


def _decodes_back(data: bytes, codec: str) -> str | None:
    try:
        text = data.decode(codec)
        return text if text.encode(codec) == data else None
    except (UnicodeDecodeError, UnicodeEncodeError, LookupError):
        return None


def guess_cjk(data: bytes, *, prefer_chinese: bool = False) -> tuple[str, float] | None:
    """(codec, confidence) of the East Asian encoding whose decoding of `data` reads most
    like real text, or None when none decodes it losslessly and reads plausibly.

    Confidence is the winning score, less the runner-up's share of it: 1.0 when only one
    language is plausible, near 0 when two are equally so. A Chinese codec wins ties
    (Chinese users are the main audience), and with `prefer_chinese` it also wins
    closer calls (see CHINESE_BONUS).
    """
    scores: list[tuple[float, int, str]] = []
    for order, codec in enumerate(CANDIDATES):
        text = _decodes_back(data, codec)
        if text is None:
            continue
        score = language_score(text, codec)
        bonus = 0.0
        if prefer_chinese and codec in _CHINESE:
            short = sum(map(_counted, text)) <= SHORT_LETTERS
            bonus = CHINESE_BONUS_SHORT if short else CHINESE_BONUS
        scores.append((score + bonus, -order, codec))
    if not scores:
        return None
    scores.sort(reverse=True)
    best, _, codec = scores[0]
    if best < MIN_SCORE:
        return None
    others = [s for s, _, c in scores[1:] if _language(c) != _language(codec)]
    runner_up = max(others, default=0.0)
    confidence = round(max(0.0, min(1.0, best) - min(1.0, runner_up) / 2), 2)
    return codec, confidence


def _language(codec: str) -> str:
    if codec in _CHINESE:
        return "zh"
    return "ja" if codec in _JAPANESE else "ko"
