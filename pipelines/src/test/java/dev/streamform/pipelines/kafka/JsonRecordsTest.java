package dev.streamform.pipelines.kafka;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;
import static org.junit.jupiter.api.Assertions.assertThrows;

import com.fasterxml.jackson.databind.JsonNode;
import dev.streamform.planner.sinks.JsonRecords;
import dev.streamform.policies.schema.ColumnType;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** Kafka record values decoded by the declared schema, and every way a record is refused. */
class JsonRecordsTest {
  private static final Map<String, ColumnType> SCHEMA = new LinkedHashMap<>();

  static {
    SCHEMA.put("customer_id", ColumnType.INT64);
    SCHEMA.put("amount", ColumnType.decimal(12, 2));
    SCHEMA.put("ordered_at", ColumnType.TIMESTAMP);
    SCHEMA.put("vip", ColumnType.BOOL);
  }

  private static final JsonRecords RECORDS = JsonRecords.of(SCHEMA, List.of("customer_id"));

  private static JsonRecords.Decoded decode(String json) throws JsonRecords.NotARecord {
    return RECORDS.decode(json.getBytes(StandardCharsets.UTF_8));
  }

  private static String refusal(String json) {
    return assertThrows(JsonRecords.NotARecord.class, () -> decode(json)).getMessage();
  }

  /**
   * A punctuation with other fields names a few of them, excerpted: twenty 50,000-character names
   * made a reason, and so a quarantine row, of over a megabyte, which the producer refuses — and
   * the job failed on that record at every restart (review of decisions and Kafka input #2).
   */
  @Test
  void aPunctuationWithManyLongFieldsIsRefusedInFewWords() {
    StringBuilder json = new StringBuilder("{\"__watermark\": \"2026-08-30T10:20:00Z\"");
    for (int i = 0; i < 20; i++) {
      json.append(", \"").append((char) ('a' + i)).append("x".repeat(49_990)).append("\": 0");
    }
    String reason = refusal(json.append('}').toString());
    assertThat(reason.length() < 1_000, is(true));
    assertThat(reason, containsString("a punctuation has only the field __watermark"));
    assertThat(reason, containsString("and 16 more"));
  }

  /**
   * {@code streamform consume} and the quarantine rows show a record's bytes parsed as JSON: its
   * decimals as they were written, not Jackson's normalized form ({@code 10.00} as {@code 1E+1}).
   */
  @Test
  void aRecordIsShownWithItsDecimalsAsWritten() {
    byte[] bytes =
        "{\"amount\":10.00,\"refund\":-20.50,\"count\":10,\"big\":1e400}"
            .getBytes(StandardCharsets.UTF_8);
    assertThat(
        JsonRecords.parseOrText(bytes).toString(),
        is("{\"amount\":10.00,\"refund\":-20.50,\"count\":10,\"big\":1E+400}"));
  }

  @Test
  void aRecordIsTypedByTheSchema() throws Exception {
    Map<String, Object> v =
        decode(
                "{\"customer_id\": 42, \"amount\": 0.1, \"ordered_at\": \"2026-08-30T10:00:00Z\","
                    + " \"vip\": true}")
            .values();
    assertThat(v.get("customer_id"), is(42L));
    assertThat(v.get("amount"), is(new BigDecimal("0.10")));
    assertThat(v.get("ordered_at"), is(Instant.parse("2026-08-30T10:00:00Z")));
    assertThat(v.get("vip"), is(true));
  }

  private static final JsonRecords MIXED =
      JsonRecords.of(
          Map.of(
              "x", ColumnType.DOUBLE,
              "amt", ColumnType.decimal(10, 2),
              "n", ColumnType.INT64,
              "vip", ColumnType.BOOL,
              "ts", ColumnType.TIMESTAMP,
              "k", ColumnType.STRING),
          List.of());

  private static String mixedRefusal(String json) {
    return assertThrows(
            JsonRecords.NotARecord.class, () -> MIXED.decode(json.getBytes(StandardCharsets.UTF_8)))
        .getMessage();
  }

  /**
   * A refusal quotes the value as the record wrote it — the number's own text, the string untrimmed
   * — not a rewritten form ({@code 1E+400}, {@code 123456789}, an empty string), so the reader can
   * find it in the record.
   */
  @Test
  void aRefusalQuotesTheValueAsTheRecordWroteIt() {
    assertThat(
        mixedRefusal("{\"x\":1e400}"),
        is("column `x`: '1e400' is out of the double range (about ±1.8e308)"));
    assertThat(
        mixedRefusal("{\"amt\":123456789.00}"),
        is(
            "column `amt`: '123456789.00' has too many digits for decimal(10,2) (at most 8"
                + " before the decimal point)"));
    assertThat(
        mixedRefusal("{\"amt\":1.2345E+1}"),
        is("column `amt`: '1.2345E+1' has more than 2 decimal places for decimal(10,2)"));
    assertThat(mixedRefusal("{\"n\":\" \"}"), is("column `n`: ' ' is not an int64"));
    assertThat(
        mixedRefusal("{\"n\":1.50}"),
        is("column `n`: '1.50' is not an int64 (not a whole number)"));
    assertThat(
        mixedRefusal("{\"vip\":\" yes \"}"),
        is("column `vip`: ' yes ' is not a bool (true or false)"));
  }

  /**
   * A number in a timestamp column, or as a punctuation's watermark, is quoted as the record wrote
   * it too (ADR 0129): it was quoted as Java printed the value read ({@code '1.788084E+12'}).
   */
  @Test
  void aNumberRefusedAsATimestampIsQuotedAsWritten() {
    assertThat(
        mixedRefusal("{\"ts\":1.788084e12}"),
        is(
            "column `ts`: '1.788084e12' is not a timestamp; give an RFC 3339 instant such as"
                + " 2026-08-30T10:00:00Z or integer epoch milliseconds"));
    assertThat(
        mixedRefusal("{\"ts\":1788084000000.50}"),
        startsWith("column `ts`: '1788084000000.50' is not a timestamp"));
    assertThat(
        mixedRefusal("{\"__watermark\":1.788084e12}"),
        startsWith("__watermark: '1.788084e12' is not a timestamp"));
    assertThat(
        mixedRefusal("{\"__watermark\":1788084000000.50}"),
        startsWith("__watermark: '1788084000000.50' is not a timestamp"));
    assertThat(
        mixedRefusal("{\"__watermark\" : 1e400}"),
        startsWith("__watermark: '1e400' is not a timestamp"));
    String longNumber = "1.788084" + "0".repeat(100) + "e12";
    String cut = "'1.788084" + "0".repeat(22) + "…(111 characters)…" + "0".repeat(17) + "e12'";
    assertThat(
        mixedRefusal("{\"ts\":" + longNumber + "}"),
        startsWith("column `ts`: " + cut + " is not a timestamp"));
    assertThat(
        mixedRefusal("{\"__watermark\":" + longNumber + "}"),
        startsWith("__watermark: " + cut + " is not a timestamp"));
  }

  /** However long the value, the reason quotes its start and end only. */
  @Test
  void aRefusalQuotesALongValueCut() {
    String longText = "y".repeat(5000);
    for (String column : List.of("vip", "ts")) {
      String reason = mixedRefusal("{\"" + column + "\":\"" + longText + "\"}");
      assertThat(reason, containsString("…(5000 characters)…"));
      assertThat(reason.length() < 300, is(true));
    }
  }

  /**
   * A long value is cut between characters, never through one: an emoji (two UTF-16 units) at a cut
   * was shown as '?', which the record does not hold; the length counted is in characters.
   */
  @Test
  void aLongValueIsCutBetweenCharacters() {
    String emoji = "\uD83D\uDE00";
    String value = "a".repeat(29) + emoji + "b".repeat(100) + emoji + "c".repeat(19);
    for (String column : List.of("vip", "ts")) {
      String reason = mixedRefusal("{\"" + column + "\":\"" + value + "\"}");
      assertThat(reason, containsString("a".repeat(29) + emoji + "…(150 characters)…"));
      assertThat(reason, containsString("…" + emoji + "c".repeat(19) + "'"));
    }
  }

  /**
   * A JSON number or bool in a string column is read as its text as the record wrote it (ADR 0129),
   * never a rewritten form.
   */
  @Test
  void aNumberInAStringColumnIsItsTextAsWritten() throws Exception {
    Map<String, Object> v = MIXED.decode("{\"k\": 1e2}".getBytes(StandardCharsets.UTF_8)).values();
    assertThat(v.get("k"), is("1e2"));
    assertThat(
        MIXED.decode("{\"k\": 1.50}".getBytes(StandardCharsets.UTF_8)).values().get("k"),
        is("1.50"));
    assertThat(
        MIXED.decode("{\"k\": 7}".getBytes(StandardCharsets.UTF_8)).values().get("k"), is("7"));
    assertThat(
        MIXED.decode("{\"k\": false}".getBytes(StandardCharsets.UTF_8)).values().get("k"),
        is("false"));
  }

  /** A record that is not UTF-8 is refused naming its first malformed byte; UTF-8 is decoded. */
  @Test
  void aRecordThatIsNotUtf8IsRefusedAtItsFirstMalformedByte() throws Exception {
    byte[] prefix = "{\"customer_id\": 1, \"note\": \"".getBytes(StandardCharsets.UTF_8);
    Map<String, String> refused = new LinkedHashMap<>();
    refused.put("Latin-1", "fc"); // ü as one byte
    refused.put("a sequence cut short", "e282"); // € without its last byte
    refused.put("an overlong encoding", "c080"); // NUL in two bytes
    refused.put("a surrogate", "eda080"); // UTF-16's half, never UTF-8
    refused.put("a byte never in UTF-8", "ff");
    for (Map.Entry<String, String> c : refused.entrySet()) {
      java.io.ByteArrayOutputStream record = new java.io.ByteArrayOutputStream();
      record.writeBytes(prefix);
      record.writeBytes(java.util.HexFormat.of().parseHex(c.getValue()));
      record.writeBytes("\"}".getBytes(StandardCharsets.UTF_8));
      String reason =
          assertThrows(JsonRecords.NotARecord.class, () -> RECORDS.decode(record.toByteArray()))
              .getMessage();
      assertThat(
          c.getKey(),
          reason,
          containsString(
              "not UTF-8 text: byte "
                  + (prefix.length + 1)
                  + " of the record is 0x"
                  + c.getValue().substring(0, 2).toUpperCase(java.util.Locale.ROOT)));
    }
    assertThat(
        decode("{\"customer_id\": 7, \"note\": \"M\u00fcller \u20ac \ud83d\ude00\"}")
            .values()
            .get("customer_id"),
        is(7L));
  }

  @Test
  void timestampsMayOmitTheZoneOrBeEpochMillis() throws Exception {
    Instant t = Instant.parse("2026-08-30T10:00:00Z");
    assertThat(
        decode("{\"customer_id\": 1, \"ordered_at\": \"2026-08-30T10:00:00\"}")
            .values()
            .get("ordered_at"),
        is(t));
    assertThat(
        decode("{\"customer_id\": 1, \"ordered_at\": " + t.toEpochMilli() + "}")
            .values()
            .get("ordered_at"),
        is(t));
  }

  /**
   * Event time is kept to the millisecond (Beam's resolution): a record's timestamp and a
   * punctuation's watermark with a finer fraction are both floored to the millisecond when the
   * record is decoded, so a record is judged, shown in the late and quarantine outputs and replayed
   * by the gates with the one value the engine holds (ADR 0090).
   */
  @Test
  void aFractionFinerThanAMillisecondIsFlooredInRecordsAndPunctuations() throws Exception {
    Instant ten = Instant.parse("2026-08-30T10:00:00Z");
    assertThat(
        decode("{\"customer_id\": 1, \"ordered_at\": \"2026-08-30T10:00:00.000100Z\"}")
            .values()
            .get("ordered_at"),
        is(ten));
    assertThat(
        decode("{\"customer_id\": 1, \"ordered_at\": \"2026-08-30T09:54:59.9999\"}")
            .values()
            .get("ordered_at"),
        is(Instant.parse("2026-08-30T09:54:59.999Z")));
    assertThat(decode("{\"__watermark\": \"2026-08-30T10:00:00.0005Z\"}").watermark(), is(ten));
    // before the epoch, floored too (towards the past), as Beam's milliseconds are
    assertThat(
        decode("{\"__watermark\": \"1969-12-31T23:59:59.9995Z\"}").watermark(),
        is(Instant.parse("1969-12-31T23:59:59.999Z")));
  }

  @Test
  void aMissingEventTimeIsLeftForExtractionToQuarantine() throws Exception {
    Map<String, Object> v = decode("{\"customer_id\": 1, \"amount\": 3}").values();
    assertThat(v.get("ordered_at"), is(nullValue()));
    assertThat(v.get("amount"), is(new BigDecimal("3.00")));
  }

  @Test
  void aPunctuationCarriesItsWatermark() throws Exception {
    JsonRecords.Decoded d = decode("{\"__watermark\": \"2026-08-30T10:20:00Z\"}");
    assertThat(d.watermark(), is(Instant.parse("2026-08-30T10:20:00Z")));
    assertThat(d.values(), is(nullValue()));
  }

  /**
   * Jackson's advice to enable one of its features is for programmers; a user is told what JSON
   * does not allow instead.
   */
  /** A trailing comma is after the last value: no column is being read, so none is named. */
  @Test
  void aTrailingCommaNamesNoColumn() {
    String comma = refusal("{\"customer_id\": 1, \"ordered_at\": \"2026-08-30T10:00:00Z\",}");
    assertThat(comma, comma.startsWith("not JSON: "), is(true));
  }

  @Test
  void aNonStandardTokenIsNamedWithoutTheParsersFeatureAdvice() {
    String nan = refusal("{\"customer_id\": 1, \"amount\": NaN}");
    assertThat(nan, containsString("column `amount`: not JSON: Non-standard token 'NaN'"));
    assertThat(nan, containsString("JSON does not allow it"));
    assertThat(nan, not(containsString("JsonReadFeature")));
    String quote = refusal("{'customer_id': 1}");
    assertThat(quote, containsString("not JSON"));
    assertThat(quote, not(containsString("JsonReadFeature")));
  }

  /**
   * A comment and a raw control character inside a string: what JSON does not allow, in the
   * record's words, not the parser's feature names.
   */
  @Test
  void aCommentAndARawControlCharacterAreNamedInPlainWords() {
    String comment = refusal("{\"customer_id\": 1, /* c */ \"amount\": 1.00}");
    assertThat(comment, containsString("a comment, which JSON does not allow"));
    assertThat(comment, not(containsString("ALLOW_COMMENTS")));
    assertThat(comment, not(containsString("Feature")));
    String control = refusal("{\"customer_id\": 1, \"amount\": \"1\u0001\"}");
    assertThat(control, containsString("control character U+0001 inside a string"));
    assertThat(control, containsString("write it as \\u0001"));
    assertThat(control, not(containsString("CTRL-CHAR")));
  }

  @Test
  void everyBadRecordGetsAReason() {
    assertThat(refusal("not json at all"), containsString("not JSON"));
    assertThat(refusal("[1, 2]"), containsString("not a JSON object: a JSON array"));
    assertThat(
        refusal("{\"customer_id\": \"abc\"}"),
        containsString("column `customer_id`: 'abc' is not an int64"));
    assertThat(
        refusal("{\"customer_id\": 1, \"amount\": 1.234}"),
        containsString(
            "column `amount`: '1.234' has more than 2 decimal places for decimal(12,2)"));
    assertThat(
        refusal("{\"customer_id\": 1, \"amount\": {\"x\": 1}}"),
        containsString("column `amount` holds a JSON object, not a decimal(12,2)"));
    assertThat(refusal("{\"amount\": 1}"), containsString("key column `customer_id` has no value"));
    assertThat(
        refusal("{\"customer_id\": 1, \"ordered_at\": \"10:00:00\"}"),
        containsString("column `ordered_at`: '10:00:00' is a time of day without a date"));
    assertThat(
        refusal("{\"__watermark\": \"2026-08-30T10:20:00Z\", \"x\": 1}"),
        containsString("a punctuation has only the field __watermark"));
    assertThat(
        assertThrows(JsonRecords.NotARecord.class, () -> RECORDS.decode(null)).getMessage(),
        containsString("tombstone"));
  }

  /**
   * Poison records: each is refused with a reason naming the column (or the repeated key) within a
   * bound of time, whatever its number's exponent or its nesting; none throws anything else.
   */
  @Test
  void poisonRecordsAreRefusedAtBoundedCostNamingTheColumn() {
    String[][] cases = {
      {
        "{\"customer_id\": 1, \"amount\": 1e900000000}",
        "column `amount`: '1e900000000' has too many digits for decimal(12,2)"
      },
      {
        "{\"customer_id\": 1, \"amount\": 1e500000000}",
        "column `amount`: '1e500000000' has too many digits for decimal(12,2)"
      },
      {
        "{\"customer_id\": 1e900000000}",
        "column `customer_id`: '1e900000000' is out of the int64 range"
      },
      {
        "{\"customer_id\": 1, \"amount\": " + "9".repeat(5000) + "}",
        "column `amount`: not JSON: Number value length (5000) exceeds the maximum allowed (1000"
      },
      {
        "{\"customer_id\": 1, \"deep\": " + "[".repeat(100_000) + "]".repeat(100_000) + "}",
        "field `deep`: not JSON: objects or arrays nested more than 100 levels deep"
      },
      {
        "{\"__watermark\": 99999999999999999999999}",
        "__watermark: '99999999999999999999999' is not"
      },
      {
        "{\"customer_id\": 1, \"note\": \"" + "x".repeat(4 * 1024 * 1024) + "\"}",
        "more than the limit of 4,194,304"
      },
    };
    for (String[] c : cases) {
      String reason =
          org.junit.jupiter.api.Assertions.assertTimeoutPreemptively(
              java.time.Duration.ofSeconds(2), () -> refusal(c[0]));
      assertThat(reason, containsString(c[1]));
    }
  }

  /**
   * A record holds one JSON object: a second one (two lines run together) or any text after it is
   * refused, not dropped while the first is read.
   */
  /**
   * A file with carriage returns alone between its records (classic Mac line ends) is one line: the
   * refusal says why, and how to convert it.
   */
  @Test
  void recordsSeparatedByACarriageReturnAloneAreSaidToHaveCrLineEnds() throws Exception {
    assertThat(
        refusal("{\"customer_id\": 1}\r{\"customer_id\": 2}"),
        is(
            "not one JSON object: more follows the object, from character 20 ('{'), after a"
                + " carriage return (CR) with no line feed: a file whose lines end in CR alone"
                + " (classic Mac) reads as one line; convert them to LF, e.g. tr '\\r' '\\n' <"
                + " in.jsonl > out.jsonl"));
  }

  /** A record nested too deep: the reason says so in words, and what a record holds. */
  @Test
  void aRecordNestedTooDeepIsSaidInWordsWithTheFix() throws Exception {
    String reason = refusal("{\"customer_id\": " + "[".repeat(100_000));
    assertThat(
        reason,
        is(
            "column `customer_id`: not JSON: objects or arrays nested more than 100 levels deep; a"
                + " record's columns hold"
                + " plain values (a string, a number, a timestamp): give nested data as one JSON"
                + " text in a string column, or flatten it"));
    assertThat(reason, containsString("a record's columns hold plain values"));
  }

  @Test
  void whatFollowsTheObjectIsRefusedNotIgnored() throws Exception {
    assertThat(
        refusal("{\"customer_id\": 1}{\"customer_id\": 2}"),
        is(
            "not one JSON object: more follows the object, from character 19 ('{'); give one JSON"
                + " object per record (per line of a file)"));
    assertThat(
        refusal("{\"customer_id\": 1} and more"),
        containsString("not one JSON object: more follows the object, from character 20"));
    assertThat(
        refusal("{\"customer_id\": 1}, {\"customer_id\": 2}"),
        containsString("more follows the object, from character 19 (',')"));
    assertThat(decode("{\"customer_id\": 1} \t\r\n").values().get("customer_id"), is(1L));
  }

  /**
   * A record cut short (a truncated line, an unterminated last line of a file) is the record's
   * problem, said in plain words with where it ends: not the last column's, and not the parser's
   * internals ("[Source: REDACTED ...", "StreamReadFeature").
   */
  @Test
  void aTruncatedRecordIsTheRecordsProblemSaidPlainly() {
    assertThat(
        refusal("{\"order_id\":\"A9\",\"customer_id\":\"c2\",\"amount\":1,"),
        is("not JSON: the record ends after character 47, before its closing }"));
    String unterminated =
        "{\"order_id\":\"B25\",\"customer_id\":\"d1\",\"amount\":1,\"price\":1,\"dd\":1,"
            + "\"ordered_at\":\"2026-08-30T10:04:00Z\"";
    assertThat(
        refusal(unterminated),
        is("not JSON: the record ends after character 100, before its closing }"));
    assertThat(
        refusal("{\"customer_id\": 1, \"note\": \"abc"),
        is("not JSON: the record ends after character 31, inside a string, before its closing }"));
    assertThat(
        refusal("{\"customer_id\": 1, \"tags\": [1, 2"),
        is("not JSON: the record ends after character 32, before its closing ] and }"));
    assertThat(
        refusal("[1, 2"), is("not JSON: the record ends after character 5, before its closing ]"));
  }

  /** The parser's limits are said without naming its classes. */
  @Test
  void aLimitOfTheParserIsSaidWithoutItsInternals() {
    String deep =
        refusal("{\"customer_id\": 1, \"deep\": " + "[".repeat(200) + "]".repeat(200) + "}");
    assertThat(deep, not(containsString("StreamReadConstraints")));
    assertThat(
        deep,
        is(
            "field `deep`: not JSON: objects or arrays nested more than 100 levels deep; a record's"
                + " columns hold plain values (a string, a number, a timestamp): give nested data"
                + " as one JSON text in a string column, or flatten it"));
  }

  /**
   * A line holding only a byte-order mark (EF BB BF, valid UTF-8) is an empty record, said so: not
   * "Invalid UTF-8 start byte 0xbb". A mark before a record is no problem.
   */
  @Test
  void aByteOrderMarkWithNoRecordAfterItIsAnEmptyRecord() throws Exception {
    byte[] bom = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};
    assertThat(
        assertThrows(JsonRecords.NotARecord.class, () -> RECORDS.decode(bom)).getMessage(),
        is("not a JSON object: empty (a byte-order mark, EF BB BF, and nothing after it)"));
    byte[] bomSpace = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF, ' ', ' '};
    assertThat(
        assertThrows(JsonRecords.NotARecord.class, () -> RECORDS.decode(bomSpace)).getMessage(),
        is("not a JSON object: empty (a byte-order mark, EF BB BF, and nothing after it)"));
    byte[] record = "\uFEFF{\"customer_id\": 7}".getBytes(StandardCharsets.UTF_8);
    assertThat(RECORDS.decode(record).values().get("customer_id"), is(7L));
  }

  /** A repeated key is ambiguous (which value holds?): the record is refused, naming the key. */
  @Test
  void aRepeatedKeyIsRefusedNamingIt() {
    assertThat(
        refusal("{\"customer_id\": 1, \"amount\": 3, \"amount\": 4}"),
        is("key `amount` is repeated in the JSON object: which value holds is ambiguous"));
    assertThat(
        refusal("{\"customer_id\": 1, \"extra\": {\"a\": 1, \"a\": 2}}"),
        containsString("key `a` is repeated"));
  }

  @Test
  void aDoubleBeyondItsRangeIsRefusedNotInfinity() {
    JsonRecords doubles = JsonRecords.of(Map.of("score", ColumnType.DOUBLE), List.of());
    String reason =
        assertThrows(
                JsonRecords.NotARecord.class,
                () -> doubles.decode("{\"score\": 1e400}".getBytes(StandardCharsets.UTF_8)))
            .getMessage();
    assertThat(reason, containsString("column `score`: '1e400' is out of the double range"));
  }

  /**
   * An infinite double spelled out ({@code "Infinity"}, {@code "-Infinity"}) is refused like one
   * beyond the range: read, it would stick its group's sum at infinity and every later event of the
   * group would be quarantined as an overflow.
   */
  @org.junit.jupiter.params.ParameterizedTest
  @org.junit.jupiter.params.provider.ValueSource(strings = {"Infinity", "-Infinity", "+Infinity"})
  void anInfiniteDoubleIsRefusedNamingTheColumnAndTheValue(String infinity) {
    JsonRecords doubles = JsonRecords.of(Map.of("score", ColumnType.DOUBLE), List.of());
    String reason =
        assertThrows(
                JsonRecords.NotARecord.class,
                () ->
                    doubles.decode(
                        ("{\"score\": \"" + infinity + "\"}").getBytes(StandardCharsets.UTF_8)))
            .getMessage();
    assertThat(
        reason,
        is(
            "column `score`: '"
                + infinity
                + "' is infinite; a double column takes finite numbers (and NaN)"));
  }

  /**
   * A string that is not storable text is refused at decode, naming the column, so the record is
   * quarantined on every path — with or without a database — instead of stopping the run at
   * PostgreSQL (which refuses U+0000 in text and jsonb) or being merged with another key (UTF-8 has
   * no form for a lone surrogate; it was written as '?') (docs/decisions/0105).
   */
  @Test
  void aStringThatIsNotStorableTextIsRefusedNamingTheColumn() throws Exception {
    JsonRecords strings =
        JsonRecords.of(
            new LinkedHashMap<>(
                Map.of("k", ColumnType.STRING, "note", ColumnType.STRING, "v", ColumnType.INT64)),
            List.of("k"));
    String[][] cases = {
      {
        "{\"k\": \"n\\u0000ul\", \"v\": 1}",
        "column `k`: contains U+0000 (NUL) at character 2, which no sink can store as text"
      },
      {
        "{\"k\": \"a\", \"note\": \"\\u0000\", \"v\": 1}",
        "column `note`: contains U+0000 (NUL) at character 1, which no sink can store as text"
      },
      {
        "{\"k\": \"\\ud800\", \"v\": 1}",
        "column `k`: contains an unpaired UTF-16 surrogate (\\ud800) at character 1,"
            + " which is not Unicode text"
      },
      {
        "{\"k\": \"\\ud801\", \"v\": 1}",
        "column `k`: contains an unpaired UTF-16 surrogate (\\ud801) at character 1,"
            + " which is not Unicode text"
      },
      {
        "{\"k\": \"ok\\udc00\", \"v\": 1}",
        "column `k`: contains an unpaired UTF-16 surrogate (\\udc00) at character 3,"
            + " which is not Unicode text"
      },
      {
        "{\"k\": \"a\", \"note\": \"\\ude00\\ud83d\"}",
        "column `note`: contains an unpaired UTF-16 surrogate (\\ude00) at character 1,"
            + " which is not Unicode text"
      },
    };
    for (String[] c : cases) {
      assertThat(
          c[0],
          assertThrows(
                  JsonRecords.NotARecord.class,
                  () -> strings.decode(c[0].getBytes(StandardCharsets.UTF_8)))
              .getMessage(),
          is(c[1]));
    }
    // a surrogate pair, escaped or written as UTF-8, is one character: the emoji is accepted
    for (String emoji : new String[] {"\\ud83d\\ude00", "\ud83d\ude00"}) {
      Map<String, Object> v =
          strings
              .decode(("{\"k\": \"" + emoji + "\", \"v\": 1}").getBytes(StandardCharsets.UTF_8))
              .values();
      assertThat(v.get("k"), is("\ud83d\ude00"));
    }
  }

  /**
   * A quarantine row shows the record parsed as JSON; one holding a lone surrogate is shown as the
   * text it was written as instead, since UTF-8 cannot write the surrogate back (it came out as
   * '?', showing another value than the record's). U+0000 and a surrogate pair are written back
   * exactly, so such records are still shown as JSON.
   */
  @Test
  void aRecordHoldingALoneSurrogateIsShownAsItsTextNotWithAQuestionMark() {
    String lone = "{\"k\":\"\\ud800\",\"v\":1}";
    JsonNode shown = JsonRecords.parseOrText(lone.getBytes(StandardCharsets.UTF_8));
    assertThat(
        new String(JsonRecords.bytes(shown), StandardCharsets.UTF_8), not(containsString("?")));
    assertThat(shown.isTextual(), is(true));
    assertThat(shown.asText(), is(lone));
    for (String exact : new String[] {"{\"k\":\"n\\u0000ul\"}", "{\"k\":\"\ud83d\ude00\"}"}) {
      JsonNode n = JsonRecords.parseOrText(exact.getBytes(StandardCharsets.UTF_8));
      assertThat(n.isObject(), is(true));
      assertThat(new String(JsonRecords.bytes(n), StandardCharsets.UTF_8), is(exact));
    }
  }
}
