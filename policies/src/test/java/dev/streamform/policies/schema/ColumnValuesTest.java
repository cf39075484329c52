package dev.streamform.policies.schema;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.is;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.math.BigDecimal;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Values that do not fit their column are refused with an IllegalArgumentException (the reason a
 * record is quarantined with) in bounded time: a huge exponent is never scaled out.
 */
class ColumnValuesTest {
  private static final ColumnType AMOUNT = ColumnType.decimal(12, 2);

  /**
   * Each refusal, of text or of the number Jackson reads from it, within 10 s: scaling such a value
   * out (new BigDecimal("1e500000000").toBigInteger()) runs for more than 20 s on this machine and
   * a refusal takes microseconds, so the bound tells the two apart without failing on a loaded CI
   * machine (it was 200 ms, which a cold run under load once missed).
   */
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "decimal(12,2) | 1e900000000    | has too many digits for decimal(12,2)",
        "decimal(12,2) | 1e500000000    | has too many digits for decimal(12,2)",
        "decimal(12,2) | -1e500000000   | has too many digits for decimal(12,2)",
        "decimal(12,2) | 1e-900000000   | has more than 2 decimal places",
        "decimal(12,2) | 1e-500000000   | has more than 2 decimal places",
        "decimal(12,2) | 12345678901.5  | has too many digits for decimal(12,2)",
        "int64         | 1e900000000    | is out of the int64 range",
        "int64         | 1e19           | is out of the int64 range",
        "int64         | 1e-900000000   | is not an int64 (not a whole number)",
        "int64         | 1.5            | is not an int64 (not a whole number)",
        "double        | 1e400          | is out of the double range",
        "double        | -1e900000000   | is out of the double range",
      })
  void aValueOutOfRangeIsRefusedAtOnce(String type, String text, String reason) {
    ColumnType column = ColumnType.parse(type);
    for (Object raw : new Object[] {text, new BigDecimal(text)}) {
      IllegalArgumentException e =
          assertTimeoutPreemptively(
              Duration.ofSeconds(10),
              () ->
                  assertThrows(
                      IllegalArgumentException.class, () -> ColumnValues.convert(column, raw)));
      assertThat(e.getMessage(), containsString(reason));
    }
  }

  /**
   * yaml.md's double form is a number (1.5, -2e3) or NaN: Java's own spellings, which
   * Double.parseDouble reads (a float or double suffix, a hexadecimal float), are not a double, as
   * they are not an int64 or a decimal (review of the model SQL, finding 6).
   */
  @ParameterizedTest
  @ValueSource(strings = {"1.5f", "1.5d", "2D", "0x1p3", "0X1.8P1", "1e", "."})
  void javasOwnSpellingsOfADoubleAreNotADouble(String text) {
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class,
            () -> ColumnValues.convert(ColumnType.DOUBLE, text),
            text);
    assertThat(
        e.getMessage(),
        is("'" + text + "' is not a double: write a number (1.5, -2e3) or NaN (or .nan)"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"1.5", "-2e3", "+1.5", ".5", "5.", "1E+3", "1.5E-5", "NaN", "-0.0"})
  void aNumberIsADouble(String text) {
    assertThat(ColumnValues.convert(ColumnType.DOUBLE, text), is(Double.valueOf(text) + 0.0));
  }

  /**
   * Within 2 s: parsing the million digits as a decimal takes some 13 s here, a refusal
   * microseconds (it was 200 ms, as above).
   */
  @Test
  void aNumberLongerThanTheLimitIsRefusedUnparsed() {
    String digits = "1".repeat(1_000_000);
    for (String type : new String[] {"decimal(12,2)", "int64", "double"}) {
      IllegalArgumentException e =
          assertTimeoutPreemptively(
              Duration.ofSeconds(2),
              () ->
                  assertThrows(
                      IllegalArgumentException.class,
                      () -> ColumnValues.convert(ColumnType.parse(type), digits)));
      assertThat(e.getMessage(), containsString("a number of 1000000 characters is longer than"));
    }
  }

  @Test
  void valuesInRangeStillConvert() {
    assertThat(ColumnValues.convert(AMOUNT, "1e3"), is(new BigDecimal("1000.00")));
    assertThat(
        ColumnValues.convert(AMOUNT, new BigDecimal("1E+9")), is(new BigDecimal("1000000000.00")));
    assertThat(ColumnValues.convert(AMOUNT, "0e900000000"), is(new BigDecimal("0.00")));
    assertThat(ColumnValues.convert(AMOUNT, "12.3000000"), is(new BigDecimal("12.30")));
    assertThat(
        ColumnValues.convert(AMOUNT, "-9999999999.99"), is(new BigDecimal("-9999999999.99")));
    assertThat(ColumnValues.convert(ColumnType.INT64, "9223372036854775807"), is(Long.MAX_VALUE));
    assertThat(ColumnValues.convert(ColumnType.INT64, "-9223372036854775808"), is(Long.MIN_VALUE));
    assertThat(ColumnValues.convert(ColumnType.INT64, "1.000e3"), is(1000L));
    assertThat(ColumnValues.convert(ColumnType.DOUBLE, "1e-400"), is(0.0));
    assertThat(ColumnValues.convert(ColumnType.DOUBLE, "1.5e300"), is(1.5e300));
  }

  /**
   * A string that is not storable text — U+0000, or half of a UTF-16 surrogate pair without the
   * other — does not fit a string column (docs/decisions/0105): PostgreSQL's text and jsonb refuse
   * U+0000, and UTF-8 has no form for a lone surrogate (it would be written as '?', merging keys).
   */
  @ParameterizedTest
  @CsvSource(
      delimiter = '|',
      value = {
        "n\\u0000ul        | contains U+0000 (NUL) at character 2, which no sink can store as text",
        "\\u0000           | contains U+0000 (NUL) at character 1, which no sink can store as text",
        "\\ud800           | contains an unpaired UTF-16 surrogate (\\ud800) at character 1,"
            + " which is not Unicode text",
        "ab\\udc00         | contains an unpaired UTF-16 surrogate (\\udc00) at character 3,"
            + " which is not Unicode text",
        "\\ud83d           | contains an unpaired UTF-16 surrogate (\\ud83d) at character 1,"
            + " which is not Unicode text",
        "x\\ude00\\ud83d | contains an unpaired UTF-16 surrogate (\\ude00) at character 2,"
            + " which is not Unicode text",
      })
  void aStringThatIsNotTextIsRefused(String escaped, String reason) {
    String value = unescape(escaped.strip());
    IllegalArgumentException e =
        assertThrows(
            IllegalArgumentException.class, () -> ColumnValues.convert(ColumnType.STRING, value));
    assertThat(e.getMessage(), is(reason));
    assertThat(
        assertThrows(
                IllegalArgumentException.class,
                () -> ColumnValues.convertLenient(ColumnType.STRING, value))
            .getMessage(),
        is(reason));
  }

  @Test
  void aSurrogatePairAndOtherControlCharactersAreText() {
    String emoji = "\ud83d\ude00";
    assertThat(ColumnValues.convert(ColumnType.STRING, emoji), is(emoji));
    assertThat(ColumnValues.convert(ColumnType.STRING, "a\u0001\t\u00e9"), is("a\u0001\t\u00e9"));
  }

  /** The table's backslash-u escapes, as Java source would read them. */
  private static String unescape(String s) {
    StringBuilder b = new StringBuilder();
    for (int i = 0; i < s.length(); i++) {
      if (s.startsWith("\\u", i)) {
        b.append((char) Integer.parseInt(s.substring(i + 2, i + 6), 16));
        i += 5;
      } else {
        b.append(s.charAt(i));
      }
    }
    return b.toString();
  }

  /**
   * A negative zero is 0.0 however it is written, as a JSON number -0.0 is read (a key of 0 and one
   * of "-0.0" were two keys; found by an audit of odd input).
   */
  @ParameterizedTest
  @CsvSource({"-0.0", "-0", "-1e-400", "0.0", "-0e5"})
  void aNegativeZeroIsZero(String text) {
    Object v = ColumnValues.convert(ColumnType.parse("double"), text);
    assertThat(Double.doubleToRawLongBits((Double) v), is(Double.doubleToRawLongBits(0.0)));
  }

  /**
   * Keys are told apart by value: 10, 10.0 and 1e1 are one key; a double that is not finite is
   * itself (a fixture keyed by a NaN double stopped with a BigDecimal error).
   */
  @Test
  void keysByValue() {
    assertThat(ColumnValues.keyByValue(10L), is(ColumnValues.keyByValue(new BigDecimal("10.00"))));
    assertThat(ColumnValues.keyByValue(10.0), is(ColumnValues.keyByValue(new BigDecimal("1e1"))));
    assertThat(ColumnValues.keyByValue(Double.NaN), is(Double.NaN));
    assertThat(ColumnValues.keyByValue(Double.NEGATIVE_INFINITY), is(Double.NEGATIVE_INFINITY));
    assertThat(ColumnValues.keyByValue("a"), is("a"));
  }
}
