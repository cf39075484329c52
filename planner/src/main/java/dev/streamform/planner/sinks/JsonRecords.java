package dev.streamform.planner.sinks;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonStreamContext;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.StreamReadConstraints;
import com.fasterxml.jackson.core.StreamReadFeature;
import com.fasterxml.jackson.core.io.JsonEOFException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.streamform.policies.schema.ColumnType;
import dev.streamform.policies.schema.ColumnValues;
import dev.streamform.policies.time.Timestamps;
import dev.streamform.transforms.Times;
import dev.streamform.transforms.extraction.EventTimeExtraction;
import java.io.IOException;
import java.io.Serializable;
import java.math.BigDecimal;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.checkerframework.checker.nullness.qual.Nullable;

/**
 * The JSON form of a source's records on Kafka, both ways, typed by the declared schema.
 *
 * <p>A record is a JSON object with a value (or {@code null}, or no field) for each column; fields
 * the schema does not name are ignored. Values convert as in fixtures ({@link
 * ColumnValues#convertLenient}): int64, string, bool, double, {@code decimal(p,s)} (never through
 * floating point), timestamp (RFC 3339 with or without a zone — without one is UTC — or epoch
 * milliseconds; a fraction finer than a millisecond is floored to it, as in a punctuation — ADR
 * 0090). A key column must have a value. {@code {"__watermark": "<instant>"}} is a punctuation.
 * Anything else is refused with a reason that names the column and the value.
 */
public final class JsonRecords implements Serializable {
  /** The one field of a punctuation record. */
  public static final String WATERMARK_FIELD = "__watermark";

  // exact: Jackson's default factory would write 10.00 as 1E+1
  private static final JsonNodeFactory NODES = JsonNodeFactory.withExactBigDecimals(true);

  /** The largest record read, in bytes (Kafka's default largest message is about 1 MiB). */
  public static final int MAX_RECORD_BYTES = 4 * 1024 * 1024;

  /** How deep objects and arrays may nest in a record: its columns are at the top level. */
  public static final int MAX_NESTING_DEPTH = 100;

  // every limit explicit, so a hostile record costs bounded time and memory and is refused with
  // Jackson's own message; a repeated key is an error, not "the last one wins"
  private static final ObjectMapper JSON =
      JsonMapper.builder(
              JsonFactory.builder()
                  .streamReadConstraints(
                      StreamReadConstraints.builder()
                          .maxNumberLength(ColumnValues.MAX_NUMBER_LENGTH)
                          .maxNestingDepth(MAX_NESTING_DEPTH)
                          .maxStringLength(MAX_RECORD_BYTES)
                          .maxDocumentLength(MAX_RECORD_BYTES)
                          .build())
                  .enable(StreamReadFeature.STRICT_DUPLICATE_DETECTION)
                  .build())
          .enable(DeserializationFeature.USE_BIG_DECIMAL_FOR_FLOATS)
          .build();

  /** Jackson's refusal of a document nested past its limit, with the limit. */
  private static final Pattern TOO_DEEP =
      Pattern.compile("nesting depth \\(\\d+\\) exceeds the maximum allowed \\((\\d+)");

  private static final Pattern DUPLICATE =
      Pattern.compile("^Duplicate (?:field|Object property) '(.*)'");

  // column -> type as written (ColumnType is not Serializable; a DoFn carries this object)
  private final LinkedHashMap<String, String> types = new LinkedHashMap<>();
  private final List<String> keyColumns;
  private transient @Nullable Map<String, ColumnType> schema;
  private final boolean punctuations;

  private JsonRecords(Map<String, ColumnType> schema, List<String> keyColumns) {
    this(schema, keyColumns, true);
  }

  private JsonRecords(
      Map<String, ColumnType> schema, List<String> keyColumns, boolean punctuations) {
    schema.forEach((name, type) -> types.put(name, type.toString()));
    this.keyColumns = List.copyOf(keyColumns);
    this.punctuations = punctuations;
  }

  private Map<String, ColumnType> schema() {
    if (schema == null) {
      Map<String, ColumnType> parsed = new LinkedHashMap<>();
      types.forEach((name, type) -> parsed.put(name, ColumnType.parse(type)));
      schema = parsed;
    }
    return schema;
  }

  /** Records of {@code schema} whose {@code keyColumns} must have values. */
  public static JsonRecords of(Map<String, ColumnType> schema, List<String> keyColumns) {
    return new JsonRecords(schema, keyColumns);
  }

  /**
   * {@link #of(Map, List)}, where a watermark line ({@code {"__watermark": ...}}) is a punctuation
   * only with {@code punctuations}: for a source that declares no {@code event_time} it is a record
   * that means nothing, and is refused saying so (docs/semantics.md §1: such a source behaves as if
   * event time did not exist; a fixture refuses a watermark item for it alike, ADR 0091).
   */
  public static JsonRecords of(
      Map<String, ColumnType> schema, List<String> keyColumns, boolean punctuations) {
    return new JsonRecords(schema, keyColumns, punctuations);
  }

  /** What a record's bytes hold: column values, or a punctuation's watermark. */
  public static final class Decoded {
    private final @Nullable Map<String, Object> values;
    private final @Nullable Instant watermark;

    private Decoded(@Nullable Map<String, Object> values, @Nullable Instant watermark) {
      this.values = values;
      this.watermark = watermark;
    }

    /** Column -> typed value (Long, String, Boolean, Double, BigDecimal, Instant or null). */
    public @Nullable Map<String, Object> values() {
      return values;
    }

    /** The watermark of a punctuation, or null for a record. */
    public @Nullable Instant watermark() {
      return watermark;
    }
  }

  /** Why bytes are not a record of the schema; the message is the quarantine reason. */
  public static final class NotARecord extends Exception {
    NotARecord(String reason) {
      super(reason, null, false, false);
    }
  }

  /**
   * Why {@code record} is not UTF-8 text — the first malformed byte, its value and its position
   * (from 1) — or empty when it is.
   */
  public static Optional<String> notUtf8(byte[] record) {
    int at = dev.streamform.policies.project.NotUtf8.firstMalformedByte(record);
    if (at < 0) {
      return Optional.empty();
    }
    return Optional.of(
        String.format(
            java.util.Locale.ROOT,
            "not UTF-8 text: byte %d of the record is 0x%02X, which UTF-8 does not allow"
                + " there; write the record (save the file) as UTF-8",
            at + 1,
            record[at] & 0xFF));
  }

  /**
   * Decodes one record's bytes.
   *
   * @throws NotARecord with the reason, e.g. {@code column `amount`: 'abc' is not a decimal(12,2)}
   */
  public Decoded decode(byte @Nullable [] bytes) throws NotARecord {
    if (bytes == null) {
      throw new NotARecord("the record has no value (a tombstone)");
    }
    if (bytes.length > MAX_RECORD_BYTES) {
      throw new NotARecord(
          String.format(
              java.util.Locale.ROOT,
              "the record is %,d bytes, more than the limit of %,d",
              bytes.length,
              MAX_RECORD_BYTES));
    }
    Optional<String> notUtf8 = notUtf8(bytes);
    if (notUtf8.isPresent()) {
      throw new NotARecord(notUtf8.get());
    }
    // a byte-order mark (valid UTF-8, and what some editors write first) is not part of the
    // record: without this, a line holding only the mark reads as "Invalid UTF-8 start byte 0xbb"
    boolean marked = startsWithByteOrderMark(bytes);
    if (marked) {
      bytes = java.util.Arrays.copyOfRange(bytes, BYTE_ORDER_MARK.length, bytes.length);
    }
    JsonNode node;
    JsonParser parser = null;
    try {
      parser = JSON.createParser(bytes);
      node = JSON.readTree(parser);
      nothingFollows(bytes, parser.currentLocation().getByteOffset());
    } catch (JsonProcessingException e) {
      if (e instanceof JsonEOFException
          || e.getCause() instanceof JsonEOFException
          || String.valueOf(e.getOriginalMessage()).startsWith("Unexpected end-of-input")) {
        throw new NotARecord(endsEarly(bytes, parser, e));
      }
      Matcher deep = TOO_DEEP.matcher(String.valueOf(e.getOriginalMessage()));
      if (deep.find()) {
        // Jackson's limit in words, with what a record holds (where: the field it is in)
        throw new NotARecord(
            field(parser)
                + "not JSON: objects or arrays nested more than "
                + deep.group(1)
                + " levels deep; a record's columns hold plain values (a string, a number, a"
                + " timestamp): give nested data as one JSON text in a string column, or flatten"
                + " it");
      }
      Matcher repeated = DUPLICATE.matcher(String.valueOf(e.getOriginalMessage()));
      if (repeated.find()) {
        throw new NotARecord(
            "key `"
                + repeated.group(1)
                + "` is repeated in the JSON object:"
                + " which value holds is ambiguous");
      }
      throw new NotARecord(
          field(parser) + "not JSON: " + firstLine(e.getOriginalMessage()) + location(e));
    } catch (IOException | RuntimeException e) {
      throw new NotARecord("not JSON: " + firstLine(e.getMessage()));
    } finally {
      close(parser);
    }
    if (node == null || !node.isObject()) {
      throw new NotARecord(
          "not a JSON object: "
              + (node == null || node.isMissingNode()
                  ? marked ? "empty (a byte-order mark, EF BB BF, and nothing after it)" : "empty"
                  : "a JSON " + node.getNodeType().name().toLowerCase()));
    }
    if (node.has(WATERMARK_FIELD)) {
      if (!punctuations) {
        throw new NotARecord(
            "a watermark line (`"
                + WATERMARK_FIELD
                + "`), but this source declares no event_time: in processing time there is no"
                + " watermark, so the line means nothing — remove it, or declare event_time on"
                + " the source in sources.yml");
      }
      return new Decoded(null, punctuation((ObjectNode) node, bytes));
    }
    Map<String, Object> values = new LinkedHashMap<>();
    // the record's numbers as written, read again only when needed: a number in a string column
    // is its text, and a refusal quotes it (not on the path of every record: a second parse)
    Map<String, String> numbers = null;
    for (Map.Entry<String, ColumnType> column : schema().entrySet()) {
      String name = column.getKey();
      JsonNode v = node.get(name);
      ColumnType type = column.getValue();
      Object value;
      if (v == null || v.isNull()) {
        value = null;
      } else if (!v.isNumber()) {
        value = convert(name, type, v, null);
      } else {
        if (type.kind() == ColumnType.Kind.STRING && numbers == null) {
          numbers = numbersAsWritten(bytes);
        }
        try {
          value = convert(name, type, v, numbers == null ? null : numbers.get(name));
        } catch (NotARecord e) {
          if (numbers != null) {
            throw e;
          }
          numbers = numbersAsWritten(bytes);
          value = convert(name, type, v, numbers.get(name));
        }
      }
      if (value == null && keyColumns.contains(name)) {
        throw new NotARecord(EventTimeExtraction.missingKeyReason(name));
      }
      values.put(name, value);
    }
    return new Decoded(values, null);
  }

  private static final byte[] BYTE_ORDER_MARK = {(byte) 0xEF, (byte) 0xBB, (byte) 0xBF};

  private static boolean startsWithByteOrderMark(byte[] bytes) {
    return bytes.length >= BYTE_ORDER_MARK.length
        && bytes[0] == BYTE_ORDER_MARK[0]
        && bytes[1] == BYTE_ORDER_MARK[1]
        && bytes[2] == BYTE_ORDER_MARK[2];
  }

  /**
   * The reason for a record that ends before its JSON does: {@code not JSON: the record ends after
   * character 47, before its closing }} — the record's problem, never its last column's (the parser
   * was only there when the bytes ran out), with the closers it lacks, innermost first.
   */
  private static String endsEarly(
      byte[] bytes, @Nullable JsonParser parser, JsonProcessingException e) {
    int end = bytes.length;
    while (end > 0
        && (bytes[end - 1] == ' '
            || bytes[end - 1] == '\t'
            || bytes[end - 1] == '\r'
            || bytes[end - 1] == '\n')) {
      end--;
    }
    String text = new String(bytes, 0, end, StandardCharsets.UTF_8);
    StringBuilder b =
        new StringBuilder("not JSON: the record ends after character ")
            .append(text.codePointCount(0, text.length()));
    JsonEOFException eof =
        e instanceof JsonEOFException
            ? (JsonEOFException) e
            : e.getCause() instanceof JsonEOFException ? (JsonEOFException) e.getCause() : null;
    JsonToken token = eof == null ? null : eof.getTokenBeingDecoded();
    if (token == JsonToken.VALUE_STRING || token == JsonToken.FIELD_NAME) {
      b.append(", inside a string");
    }
    List<String> closers = new java.util.ArrayList<>();
    for (JsonStreamContext at = parser == null ? null : parser.getParsingContext();
        at != null;
        at = at.getParent()) {
      if (at.inObject()) {
        closers.add("}");
      } else if (at.inArray()) {
        closers.add("]");
      }
    }
    if (!closers.isEmpty()) {
      b.append(", before its closing ").append(String.join(" and ", closers));
    }
    return b.toString();
  }

  /**
   * Refuses a record with more than whitespace after its JSON value (from byte {@code end}): a
   * second object there, e.g. two lines run together, would otherwise be dropped unseen.
   */
  private static void nothingFollows(byte[] bytes, long end) throws NotARecord {
    if (end < 0 || end > bytes.length) {
      return;
    }
    for (int i = (int) end; i < bytes.length; i++) {
      byte b = bytes[i];
      if (b == ' ' || b == '\t' || b == '\r' || b == '\n') {
        continue;
      }
      String before = new String(bytes, 0, i, StandardCharsets.UTF_8);
      int next = new String(bytes, i, bytes.length - i, StandardCharsets.UTF_8).codePointAt(0);
      boolean crAlone = false; // between the object and what follows: a CR with no LF
      for (int j = (int) end; j < i; j++) {
        crAlone |= bytes[j] == '\r' && (j + 1 >= bytes.length || bytes[j + 1] != '\n');
      }
      throw new NotARecord(
          "not one JSON object: more follows the object, from character "
              + (before.codePointCount(0, before.length()) + 1)
              + " ('"
              + new String(Character.toChars(next))
              + (crAlone
                  ? "'), after a carriage return (CR) with no line feed: a file whose lines end in"
                      + " CR alone (classic Mac) reads as one line; convert them to LF, e.g. tr"
                      + " '\\r' '\\n' < in.jsonl > out.jsonl"
                  : "'); give one JSON object per record (per line of a file)"));
    }
  }

  /**
   * {@code column `x`: } (or {@code field `x`: }) when the parser stopped inside top-level field
   * {@code x}, however deep.
   */
  private String field(@Nullable JsonParser parser) {
    JsonStreamContext at = parser == null ? null : parser.getParsingContext();
    boolean nested = false;
    while (at != null && at.getParent() != null && !at.getParent().inRoot()) {
      at = at.getParent();
      nested = true;
    }
    // only while a field's value is read (its name just read, or inside its array or object): a
    // trailing comma or a bad next name comes after the last value, in no column
    if (!nested && parser.currentToken() != com.fasterxml.jackson.core.JsonToken.FIELD_NAME) {
      return "";
    }
    String name = at == null ? null : at.getCurrentName();
    if (name == null) {
      return "";
    }
    return (types.containsKey(name) ? "column `" : "field `") + name + "`: ";
  }

  private static void close(@Nullable JsonParser parser) {
    if (parser != null) {
      try {
        parser.close();
      } catch (IOException e) {
        // reading from bytes: nothing to release
      }
    }
  }

  private static String location(JsonProcessingException e) {
    return e.getLocation() == null ? "" : " (at character " + (e.getLocation().getColumnNr()) + ")";
  }

  private static Instant punctuation(ObjectNode node, byte[] bytes) throws NotARecord {
    if (node.size() != 1) {
      throw new NotARecord(
          "a punctuation has only the field "
              + WATERMARK_FIELD
              + ", this one has "
              + fieldNames(node));
    }
    JsonNode w = node.get(WATERMARK_FIELD);
    Object value =
        w.isIntegralNumber() && w.canConvertToLong() ? (Object) w.longValue() : w.asText();
    // a refusal quotes a number as the record wrote it (1.788084e12), not as read (1.788084E+12);
    // a punctuation has one field, so reading its text again costs little
    String written = w.isNumber() ? numbersAsWritten(bytes).get(WATERMARK_FIELD) : null;
    try {
      return Timestamps.parseLenient(value, written);
    } catch (RuntimeException e) {
      throw new NotARecord(WATERMARK_FIELD + ": " + e.getMessage());
    }
  }

  /**
   * The text of each number at the top level of {@code bytes} (an object already read whole) as the
   * record wrote it ({@code 1e400}, {@code 123456789.00}), by field: a tree keeps only the number's
   * value, which prints rewritten ({@code 1E+400}).
   */
  private static Map<String, String> numbersAsWritten(byte[] bytes) {
    Map<String, String> numbers = new java.util.HashMap<>();
    try (JsonParser p = JSON.createParser(bytes)) {
      if (p.nextToken() != com.fasterxml.jackson.core.JsonToken.START_OBJECT) {
        return numbers;
      }
      while (p.nextToken() == com.fasterxml.jackson.core.JsonToken.FIELD_NAME) {
        String field = p.currentName();
        com.fasterxml.jackson.core.JsonToken value = p.nextToken();
        if (value != null && value.isNumeric()) {
          numbers.put(field, p.getText());
        } else {
          p.skipChildren();
        }
      }
    } catch (IOException | RuntimeException e) {
      // read once already: nothing new can fail here; without the text the value is shown as read
    }
    return numbers;
  }

  private static Object convert(String name, ColumnType type, JsonNode v, @Nullable String number)
      throws NotARecord {
    Object raw;
    String written = number; // as the record wrote the value, for messages and string columns
    if (v.isIntegralNumber()) {
      raw = v.canConvertToLong() ? (Object) v.longValue() : v.decimalValue();
    } else if (v.isNumber()) {
      raw = v.decimalValue();
    } else if (v.isBoolean()) {
      raw = v.booleanValue();
      written = v.asText();
    } else if (v.isTextual()) {
      raw = v.textValue();
      written = v.textValue();
    } else {
      throw new NotARecord(
          "column `"
              + name
              + "` holds a JSON "
              + v.getNodeType().name().toLowerCase()
              + ", not a "
              + type);
    }
    try {
      return ColumnValues.convertLenient(type, raw, written);
    } catch (RuntimeException e) {
      // any failure typing one value is this record's, never the job's
      throw new NotARecord(
          "column `"
              + name
              + "`: "
              + (e instanceof IllegalArgumentException
                  ? e.getMessage()
                  : "cannot be read as " + type + " (" + e + ")"));
    }
  }

  /** The JSON object of typed values, in the given order; instants as RFC 3339 in UTC. */
  public static ObjectNode object(Map<String, ?> values) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    values.forEach((name, value) -> o.set(name, node(value)));
    return o;
  }

  /** The JSON value of a typed value (declared types, or Beam's Joda instants). */
  public static JsonNode node(@Nullable Object value) {
    JsonNodeFactory f = NODES;
    if (value == null) {
      return f.nullNode();
    }
    if (value instanceof org.joda.time.ReadableInstant) {
      value = Times.toJava(((org.joda.time.ReadableInstant) value));
    }
    if (value instanceof Instant) {
      return f.textNode(Timestamps.format((Instant) value));
    }
    if (value instanceof BigDecimal) {
      BigDecimal d = (BigDecimal) value;
      return f.numberNode(d.scale() < 0 ? d.setScale(0) : d);
    }
    if (value instanceof Long || value instanceof Integer) {
      return f.numberNode(((Number) value).longValue());
    }
    if (value instanceof Double) {
      return f.numberNode((Double) value);
    }
    if (value instanceof Boolean) {
      return f.booleanNode((Boolean) value);
    }
    return f.textNode(value.toString());
  }

  /** The bytes of a punctuation record carrying {@code watermark}. */
  public static byte[] punctuation(Instant watermark) {
    ObjectNode o = JsonNodeFactory.instance.objectNode();
    o.put(WATERMARK_FIELD, Timestamps.format(watermark));
    return bytes(o);
  }

  public static byte[] bytes(JsonNode node) {
    return text(node).getBytes(StandardCharsets.UTF_8);
  }

  /**
   * How every record Streamform writes is written: {@code node} as compact JSON, a decimal as a
   * plain number with its scale ({@code 0.00000001}, {@code 30.00}) and never in the scientific
   * notation {@code BigDecimal.toString()} gives below 1E-6 ({@code 1E-8}) — what
   * docs/reference/output-formats.md promises and the revision digests hash. ({@code
   * JsonNode.toString()} would take Jackson's defaults.)
   */
  public static String text(JsonNode node) {
    try {
      return PLAIN.writeValueAsString(node);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      // a number a record wrote whose exponent is too large to spell out (a quarantined record's
      // {"amount": 1e900000000}: 900 million zeros): Jackson refuses it plain; keep the exponent
      return node.toString();
    }
  }

  private static final com.fasterxml.jackson.databind.ObjectWriter PLAIN =
      JsonMapper.builder()
          .enable(com.fasterxml.jackson.core.StreamWriteFeature.WRITE_BIGDECIMAL_AS_PLAIN)
          .build()
          .writer();

  /** {@link #JSON}'s limits, with decimal nodes kept exactly as the bytes write them. */
  private static final ObjectReader SHOWN = JSON.reader().with(NODES);

  /**
   * Parses bytes as JSON, or gives them as a JSON string when they are not JSON (or null), or when
   * a string in them is an unpaired UTF-16 surrogate ({@code "\\ud800"}): UTF-8 cannot write that
   * back (it would show as '?', another value than the record's), while the text as written holds
   * only its escape.
   */
  public static JsonNode parseOrText(byte @Nullable [] bytes) {
    if (bytes == null) {
      return JsonNodeFactory.instance.nullNode();
    }
    try {
      // decimals as written (10.00, not Jackson's normalized 1E+1): this is what a person reads
      JsonNode n = SHOWN.readTree(bytes);
      if (n != null && !n.isMissingNode() && !holdsLoneSurrogate(n)) {
        return n;
      }
    } catch (IOException e) {
      // not JSON: shown as text below
    }
    return JsonNodeFactory.instance.textNode(new String(bytes, StandardCharsets.UTF_8));
  }

  /** Whether a string or a field name in {@code node} holds an unpaired surrogate. */
  private static boolean holdsLoneSurrogate(JsonNode node) {
    if (node.isTextual()) {
      return loneSurrogate(node.textValue());
    }
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> field = it.next();
      if (loneSurrogate(field.getKey()) || holdsLoneSurrogate(field.getValue())) {
        return true;
      }
    }
    if (node.isArray()) {
      for (JsonNode element : node) {
        if (holdsLoneSurrogate(element)) {
          return true;
        }
      }
    }
    return false;
  }

  private static boolean loneSurrogate(String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (Character.isHighSurrogate(c)
          && i + 1 < s.length()
          && Character.isLowSurrogate(s.charAt(i + 1))) {
        i++;
      } else if (Character.isSurrogate(c)) {
        return true;
      }
    }
    return false;
  }

  /** How many of a record's field names a refusal lists. */
  private static final int NAMES_LISTED = 5;

  /**
   * The record's field names as a refusal lists them: the first few, each excerpted, and how many
   * more — a record of twenty 50,000-character names made a reason, and so a quarantine row, larger
   * than the producer sends.
   */
  private static String fieldNames(ObjectNode node) {
    StringBuilder b = new StringBuilder();
    int listed = 0;
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      String name = it.next();
      if (listed == NAMES_LISTED) {
        b.append(" and ").append(node.size() - listed).append(" more");
        break;
      }
      b.append(listed == 0 ? "" : ", ").append(dev.streamform.core.text.Excerpt.of(name));
      listed++;
    }
    return b.toString();
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "unreadable";
    }
    int nl = message.indexOf('\n');
    String line = nl < 0 ? message : message.substring(0, nl);
    // Jackson's advice to enable one of its features is for programmers, not for the record's
    // author: say what JSON does not allow instead
    line = PARSER_ADVICE.matcher(line).replaceAll("; JSON does not allow it");
    if (COMMENT.matcher(line).lookingAt()) {
      return "a comment, which JSON does not allow";
    }
    Matcher control = CONTROL_CHARACTER.matcher(line);
    if (control.lookingAt()) {
      String code = String.format("%04X", Integer.parseInt(control.group(1)));
      return "a control character U+"
          + code
          + " inside a string, which JSON does not allow; write it as \\u"
          + code;
    }
    // nor where in Jackson a limit is set, nor its redacted source description
    return PARSER_INTERNALS.matcher(line).replaceAll("");
  }

  /** Jackson's words for a {@code /} that may start a comment, which JSON has none of. */
  private static final Pattern COMMENT =
      Pattern.compile(
          "Unexpected character \\('/' \\(code 47\\)\\): maybe a \\(non-standard\\) comment");

  /** Jackson's words for a raw control character (code given in decimal) inside a string. */
  private static final Pattern CONTROL_CHARACTER =
      Pattern.compile("Illegal unquoted character \\(\\(CTRL-CHAR, code (\\d+)\\)\\)");

  /**
   * {@code , from `StreamReadConstraints.getMaxNestingDepth()`} and {@code (start marker at
   * [Source: REDACTED (...); line: 1, column: 1])}: the parser's, not the record's.
   */
  private static final Pattern PARSER_INTERNALS =
      Pattern.compile(
          ",? from `StreamReadConstraints\\.[A-Za-z]+\\(\\)`"
              + "|\\s*\\(start marker at \\[Source: .*?; line: \\d+, column: \\d+\\]\\)"
              + "|\\s*\\[Source: .*?; line: \\d+, column: \\d+\\]");

  /** Jackson's "enable `JsonReadFeature.X` to allow" (with or without "(or ...)" around it). */
  private static final java.util.regex.Pattern PARSER_ADVICE =
      java.util.regex.Pattern.compile(
          "[:;,]?\\s*\\(?(?:or |maybe )?enable"
              + " `?(?:JsonReadFeature|JsonParser\\.Feature)\\.[A-Z_]+`?(?: to allow)?[^)]*\\)?");
}
