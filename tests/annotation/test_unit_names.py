"""The QC unit names the task modules write are read back by the analyses with the parsers
declared beside them (annotation.quality.labels; docs/QUALITY.md): every parser inverts its
format, and refuses a name of another kind."""

from annotation.quality import labels as ql


def test_every_parser_inverts_its_format():
    assert ql.split_unit(ql.on_report(ql.item_unit("expert", 3), "Sys@A")) == (
        "item expert:3@Sys", "A")  # fmt: skip
    assert ql.split_unit("clarity") == ("clarity", "")
    assert ql.parse_item(ql.item_unit("hy:brid", 12)) == ("hy:brid", 12)
    assert ql.parse_claim(ql.claim_unit("c1")) == ("c1", None)
    assert ql.parse_claim(ql.claim_unit("c1", "[2]")) == ("c1", "[2]")
    assert ql.parse_rating(ql.rating_unit("clarity")) == "clarity"
    assert ql.parse_scale(ql.scale_unit("emphasis", "default", 0)) == ("emphasis", "default", 0)
    assert ql.parse_ranking(ql.medal_label({"b": "silver", "a": "gold"})) == {
        "a": "gold", "b": "silver"}  # fmt: skip
    assert ql.parse_keyed(ql.keyed_unit("n1", "SysA"))[0] == ("n1", "SysA")
    assert ql.parse_keyed(ql.keyed_unit("", "SysA"))[0] == ("", "SysA")
    assert ql.parse_keyed(ql.keyed_unit("ref1", "")) == [("ref1", "")]
    assert ("a@b", "") in ql.parse_keyed(ql.keyed_unit("a@b", ""))


def test_a_name_of_another_kind_is_not_parsed():
    assert ql.parse_item("claim c1") is None
    assert ql.parse_item("item expert:x") is None
    assert ql.parse_claim("item expert:1") is None
    assert ql.parse_rating("paragraph 1") is None
    assert ql.parse_scale("emphasis claim c1") is None
