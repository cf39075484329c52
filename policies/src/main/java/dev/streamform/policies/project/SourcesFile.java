package dev.streamform.policies.project;

import dev.streamform.core.time.LateEvents;
import dev.streamform.policies.declarations.Connector;
import dev.streamform.policies.declarations.SourceDeclaration;
import dev.streamform.policies.schema.ColumnType;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;
import org.apache.kafka.common.internals.Topic;

/** Reads and checks {@code sources.yml}: the rules of a source on its own. */
final class SourcesFile {
  static final String NAME = "sources.yml";

  static final List<String> KEYS =
      List.of(
          "connector",
          "topic",
          "path",
          "format",
          "schema",
          "event_time",
          "max_out_of_orderness",
          "watermark",
          "late_events",
          "idle_after",
          "partitions",
          "event_id",
          "duplicates_within",
          "event_id_scope",
          "kafka.properties");

  private SourcesFile() {}

  /**
   * What is known about one declared source, even when it has problems, so that checks of the
   * models reading it can still run.
   *
   * @param declaration present when the source has no problem
   * @param schema the columns whose type could be read
   * @param schemaComplete every column's type could be read
   * @param eventTime whether the source declares {@code event_time} (valid or not)
   * @param yaml the source's mapping, when it is one: its topic and that topic's line
   */
  record Entry(
      String name,
      Optional<SourceDeclaration> declaration,
      Map<String, ColumnType> schema,
      boolean schemaComplete,
      boolean eventTime,
      Optional<YamlMap> yaml) {

    /** The Kafka topic a kafka source reads, when it is a legal topic name. */
    Optional<String> topic() {
      return yaml.filter(s -> s.peek("connector").filter("kafka"::equals).isPresent())
          .flatMap(s -> s.peek("topic"))
          .filter(t -> Names.topicProblem(t).isEmpty());
    }
  }

  /**
   * Every source declared in {@code text}, in file order; problems go to {@code problems}. Empty
   * when the file is not even a {@code sources:} map, so checks that depend on it are skipped.
   */
  static Optional<Map<String, Entry>> read(Path dir, String text, List<Problem> problems) {
    Map<String, Entry> sources = new LinkedHashMap<>();
    Optional<YamlMap> top =
        YamlMap.parseFile(NAME, text, "sources: followed by one source per name", problems);
    if (top.isEmpty()) {
      return Optional.empty();
    }
    top.get().allowOnly(List.of("sources"));
    if (!top.get().has("sources")) {
      top.get().reportMissing("sources", "start the file with sources: and one source per name");
      return Optional.empty();
    }
    Optional<YamlMap> all =
        top.get().map("sources", Optional.empty(), "sources: followed by one source per name");
    if (all.isEmpty()) {
      return Optional.empty();
    }
    if (all.get().keys().isEmpty()) {
      all.get()
          .report(
              "sources",
              "declares no source",
              "add one, e.g. orders: with connector:, topic: and schema:");
    }
    Map<String, FirstReader> logs = new LinkedHashMap<>();
    for (String name : all.get().keys()) {
      String subject = "source '" + name + "'";
      Optional<YamlMap> source =
          all.get()
              .map(
                  name,
                  Optional.of(subject),
                  name + ": followed by its keys (connector, topic, schema, ...)");
      int before = problems.size();
      if (!Names.isIdentifier(name)) {
        all.get()
            .report(
                name,
                "'" + name + "' is not a usable source name",
                "use ASCII letters (a-z, A-Z), digits and _ (starting with a letter or _)");
      }
      sources.put(
          name,
          source
              .map(s -> read(dir, name, s, before, problems))
              .orElse(new Entry(name, Optional.empty(), Map.of(), false, false, Optional.empty())));
      source.ifPresent(s -> checkOneLog(dir, name, s, logs));
    }
    return Optional.of(sources);
  }

  /** The source that first read a log, the line where it names it, and the log as it names it. */
  private record FirstReader(String source, int line, String shown) {}

  /**
   * One log, one source (ADR 0146): a kafka source reading the topic of an earlier source, or a
   * file source reading the file of an earlier one ({@code path:} resolved against the project
   * folder; a glob compared as written), is a problem at its {@code topic:} or {@code path:} line.
   * Two sources over one log would be two clocks judging the same events, and what {@code produce}
   * writes for one would be the other's events too.
   */
  private static void checkOneLog(Path dir, String name, YamlMap s, Map<String, FirstReader> logs) {
    String connector = s.peek("connector").orElse("");
    String key;
    String log;
    String shown;
    if (connector.equals("kafka")) {
      Optional<String> topic = s.peek("topic").filter(t -> Names.topicProblem(t).isEmpty());
      if (topic.isEmpty()) {
        return;
      }
      key = "topic";
      // Kafka's own rule: '.' and '_' alike (it will not create one beside the other)
      log = "topic " + Topic.unifyCollisionChars(topic.get());
      shown = "topic '" + topic.get() + "'";
    } else if (connector.equals("file")) {
      Optional<String> path = s.peek("path").filter(p -> ProjectFiles.outside(dir, p).isEmpty());
      if (path.isEmpty()) {
        return;
      }
      Path root = dir.toAbsolutePath().normalize();
      key = "path";
      shown = root.relativize(root.resolve(path.get()).normalize()).toString();
      log = "file " + shown;
    } else {
      return;
    }
    FirstReader first = logs.putIfAbsent(log, new FirstReader(name, s.line(key), shown));
    if (first == null) {
      return;
    }
    if (!first.shown().equals(shown)) {
      s.report(
          key,
          "reads "
              + shown
              + ", which collides with "
              + first.shown()
              + " that source '"
              + first.source()
              + "' reads (line "
              + first.line()
              + "): Kafka treats '.' and '_' in topic names alike and will not hold both",
          "name the topic as it is in Kafka, or read source('"
              + first.source()
              + "') in every model of that topic");
      return;
    }
    String what = key.equals("topic") ? "topic" : "file";
    s.report(
        key,
        "reads "
            + shown
            + ", as source '"
            + first.source()
            + "' does (line "
            + first.line()
            + "): one log would have two clocks, and what is "
            + (key.equals("topic") ? "produced" : "written")
            + " for one source would be the other's events too",
        "read source('"
            + first.source()
            + "') in every model of that "
            + what
            + ", or name another "
            + what
            + " (two clocks over one log are two projects)");
  }

  /**
   * The file sources of the valid project in {@code dir} whose {@code path:} matches no file, each
   * a problem at its {@code path:} line: what {@code check} warns of and {@code run} refuses when
   * it starts. Loading a project does not ask for them: {@code test} runs a fixture's events, not
   * the files'.
   */
  static List<Problem> missingFiles(Path dir, String text) {
    List<Problem> missing = new ArrayList<>();
    forEachFilePath(
        text,
        (source, path) -> {
          if (ProjectFiles.matching(dir, path).isEmpty()) {
            missing.add(
                source.at(
                    "path",
                    path
                        + " matches no file under "
                        + dir
                        + ": streamform run will refuse it (streamform test needs no such file:"
                        + " a fixture's events are its own)",
                    "create it, or give a file of JSON lines (or a glob such as orders/*.jsonl)"
                        + " relative to the project folder"));
          }
        });
    return missing;
  }

  /**
   * The files of the valid project in {@code dir}'s file sources that {@code run} would refuse to
   * read ({@link UnreadableDataFile}: the file system refuses them, or they are saved as UTF-16 or
   * UTF-32, ADR 0131), each a problem at its source's {@code path:} line in the words {@code run}
   * refuses it with; {@code opener} opens a file (the file system's, or in a test one that fails).
   */
  static List<Problem> unreadableFiles(Path dir, String text, UnreadableDataFile.Opener opener) {
    List<Problem> found = new ArrayList<>();
    forEachFilePath(
        text,
        (source, path) -> {
          for (Path file : ProjectFiles.matching(dir, path)) {
            UnreadableDataFile.of(file, opener)
                .ifPresent(u -> found.add(source.at("path", u.problem(), u.fix())));
          }
        });
    return found;
  }

  /** Calls {@code visit} with each file source of {@code text} (sources.yml) and its path:. */
  private static void forEachFilePath(
      String text, java.util.function.BiConsumer<YamlMap, String> visit) {
    List<Problem> ignored = new ArrayList<>(); // a loaded project's file has none
    Optional<YamlMap> all =
        YamlMap.parseFile(NAME, text, "sources:", ignored)
            .flatMap(top -> top.map("sources", Optional.empty(), "sources:"));
    if (all.isEmpty()) {
      return;
    }
    for (String name : all.get().keys()) {
      Optional<YamlMap> source =
          all.get().map(name, Optional.of("source '" + name + "'"), "source");
      if (source.isEmpty()
          || !"file".equals(source.get().string("connector", "").orElse(""))
          || !source.get().has("path")) {
        continue;
      }
      source.get().string("path", "").ifPresent(path -> visit.accept(source.get(), path));
    }
  }

  private static Entry read(
      Path dir, String name, YamlMap s, int problemsBefore, List<Problem> problems) {
    s.allowOnly(KEYS);
    SourceDeclaration.Builder b = SourceDeclaration.builder().setName(name);

    Optional<Connector> connector =
        s.choice("connector", Connector.class, "kafka or connector: file");
    Optional<String> topic = s.string("topic", "topic: orders");
    Optional<String> path = s.string("path", "path: orders.jsonl");
    if (!s.has("connector")) {
      s.reportMissing(
          "connector", "add connector: kafka (with topic:) or connector: file (with path:)");
    }
    connector.ifPresent(
        c -> {
          b.setConnector(c);
          if (c == Connector.KAFKA) {
            if (!s.has("topic")) {
              s.reportMissing("topic", "a kafka source needs its topic: add topic: <kafka topic>");
            }
            if (s.has("path")) {
              s.report(
                  "path",
                  "a kafka source reads a topic, not a file",
                  "remove path, or use connector: file");
            }
          } else {
            if (!s.has("path")) {
              s.reportMissing(
                  "path", "a file source needs its file: add path: <file of JSON lines>");
            }
            if (s.has("topic")) {
              s.report(
                  "topic",
                  "a file source reads a file, not a topic",
                  "remove topic, or use connector: kafka");
            }
          }
        });
    topic.ifPresent(
        t ->
            Names.topicProblem(t)
                .ifPresentOrElse(
                    problem -> s.report("topic", problem, Names.topicFix("topic", "orders")),
                    () -> b.setTopic(t)));
    path.ifPresent(
        p -> {
          if (p.isBlank()) {
            s.report(
                "path",
                "the path is empty",
                "a file source needs path: naming a file of JSON lines (or a glob such as"
                    + " orders/*.jsonl) relative to the project folder, e.g. path: orders.jsonl");
            return;
          }
          ProjectFiles.outside(dir, p)
              .ifPresentOrElse(
                  problem ->
                      s.report("path", problem, ProjectFiles.FIX + ", e.g. path: orders.jsonl"),
                  () -> b.setPath(p));
        });
    s.string("partitions", "partitions: 3")
        .ifPresent(
            text -> {
              String t = text.trim();
              if (!t.matches("\\d{1,5}")
                  || Integer.parseInt(t) < 1
                  || Integer.parseInt(t) > 10000) {
                s.report(
                    "partitions",
                    "'" + text + "' is not a partition count",
                    "write the topic's partition count, a whole number from 1 to 10000, e.g."
                        + " partitions: 3");
              } else if (connector.isPresent() && connector.get() != Connector.KAFKA) {
                s.report(
                    "partitions",
                    "a file source's partitions are not declared",
                    "remove partitions (it is the partition count of a kafka topic)");
              } else {
                b.setPartitions(Integer.parseInt(t));
              }
            });

    s.string("kafka.properties", "kafka.properties: kafka.properties")
        .ifPresent(
            file -> {
              if (connector.isPresent() && connector.get() != Connector.KAFKA) {
                s.report(
                    "kafka.properties",
                    "a file source has no Kafka client settings",
                    "remove kafka.properties (it names the Kafka client settings of a kafka"
                        + " source)");
              } else if (ProjectFiles.outside(dir, file).isPresent()) {
                s.report(
                    "kafka.properties",
                    ProjectFiles.outside(dir, file).get(),
                    ProjectFiles.FIX + ", e.g. kafka.properties: kafka.properties");
              } else if (!Files.isRegularFile(dir.resolve(file))) {
                s.report(
                    "kafka.properties",
                    "'" + file + "' is not a file in the project folder " + dir,
                    "give the path of a .properties file of Kafka client settings, relative to the"
                        + " project folder (e.g. kafka.properties: kafka.properties with"
                        + " security.protocol=SASL_SSL)");
              } else {
                // a project file is shared: its secrets must come from the environment
                List<KafkaClientProperties.Setting> read =
                    KafkaClientProperties.read(dir.resolve(file), file, problems);
                problems.addAll(KafkaClientProperties.of(read).locationProblems(null));
                b.setKafkaProperties(file);
              }
            });

    s.string("format", "format: json")
        .ifPresent(
            format -> {
              if (format.trim().equalsIgnoreCase("json")) {
                b.setFormat("json");
              } else {
                s.report(
                    "format",
                    "unknown format '" + format + "'",
                    "write format: json (the only format so far)");
              }
            });

    Map<String, ColumnType> schema = new LinkedHashMap<>();
    boolean schemaComplete = readSchema(s, schema);
    b.setSchema(schema);

    Optional<String> eventTime = s.string("event_time", "event_time: <timestamp column>");
    eventTime.ifPresent(
        column -> {
          b.setEventTime(column);
          checkEventTime(s, column, schema, schemaComplete);
        });
    // the bound on disorder; "watermark" is its older name, kept (the watermark is W_p itself)
    String bound = s.nameOf("max_out_of_orderness", "watermark");
    for (String clockKey : List.of(bound, "late_events", "idle_after")) {
      if (s.has(clockKey) && !s.has("event_time")) {
        s.report(
            clockKey,
            clockMessage(clockKey),
            "add event_time: <timestamp column> or remove " + clockKey);
      }
    }
    s.duration(bound, "5m").ifPresent(b::setWatermark);
    s.choice("late_events", LateEvents.class, "drop or late_events: keep")
        .ifPresent(b::setLateEvents);
    s.duration("idle_after", "1m")
        .ifPresent(
            idle -> {
              if (idle.isZero()) {
                s.report(
                    "idle_after",
                    "0s would make every partition idle at once",
                    "give how long a silent partition may hold the watermark back, e.g. idle_after:"
                        + " 1m, or remove it");
              } else {
                b.setIdleAfter(idle);
              }
            });

    readEventId(s, b, schema, schemaComplete);

    Optional<SourceDeclaration> declaration =
        problems.size() == problemsBefore ? Optional.of(b.build()) : Optional.empty();
    return new Entry(
        name,
        declaration,
        Collections.unmodifiableMap(schema),
        schemaComplete,
        eventTime.isPresent(),
        Optional.of(s));
  }

  /**
   * {@code event_id} (a column of the schema, on a source with event time) and its horizon {@code
   * duplicates_within} (a positive duration; default one hour), and what the id is unique within,
   * {@code event_id_scope} (source or key; default source, ADR 0073).
   */
  private static void readEventId(
      YamlMap s,
      SourceDeclaration.Builder b,
      Map<String, ColumnType> schema,
      boolean schemaComplete) {
    Optional<String> eventId = s.string("event_id", "event_id: <id column>");
    Optional<java.time.Duration> within = s.duration("duplicates_within", "1h");
    Optional<SourceDeclaration.EventIdScope> scope =
        s.choice(
            "event_id_scope",
            SourceDeclaration.EventIdScope.class,
            "source or event_id_scope: key");
    if (s.has("event_id_scope") && !s.has("event_id")) {
      s.report(
          "event_id_scope",
          "event_id_scope needs event_id: there is no id to scope",
          "add event_id: <column that identifies an event> or remove event_id_scope");
    }
    if (s.has("duplicates_within") && !s.has("event_id")) {
      s.report(
          "duplicates_within",
          "duplicates_within needs event_id: there is no id to repeat",
          "add event_id: <column that identifies an event> or remove duplicates_within");
    }
    within.ifPresent(
        w -> {
          if (w.isZero()) {
            s.report(
                "duplicates_within",
                "0s would recognise no duplicate",
                "give how long after an event's time a repeat of its id is still a duplicate, e.g."
                    + " duplicates_within: 1h, or remove event_id");
          }
        });
    if (eventId.isEmpty()) {
      return;
    }
    String column = eventId.get();
    if (!s.has("event_time")) {
      s.report(
          "event_id",
          "event_id needs an event-time column: duplicates are recognised within"
              + " a horizon of event time, which bounds the state",
          "add event_time: <timestamp column> or remove event_id");
    }
    if (!schema.containsKey(column)) {
      if (schemaComplete) {
        Optional<String> closest = Names.closest(column, schema.keySet());
        s.report(
            "event_id",
            "'" + column + "' is not a column of the schema",
            closest.map(c -> "did you mean '" + c + "'? ").orElse("")
                + "name the column that identifies an event: "
                + String.join(", ", schema.keySet()));
      }
      return;
    }
    b.setEventId(column);
    b.setDuplicatesWithin(
        within.filter(w -> !w.isZero()).orElse(SourceDeclaration.DEFAULT_DUPLICATES_WITHIN));
    scope.ifPresent(b::setEventIdScope);
  }

  /**
   * The field that makes a record a punctuation ({@code {"__watermark": "<instant>"}}, JsonRecords
   * in the planner), so no column may have its name.
   */
  static final String PUNCTUATION_FIELD = "__watermark";

  /** Reads the schema into {@code schema}; true when every column's type could be read. */
  private static boolean readSchema(YamlMap s, Map<String, ColumnType> schema) {
    if (!s.has("schema")) {
      s.reportMissing(
          "schema",
          "add schema: with one column: type per line (int64, string, bool, double, decimal(p,s),"
              + " timestamp)");
      return false;
    }
    Optional<YamlMap> columns =
        s.map("schema", Optional.empty(), "schema: with one column: type per line");
    if (columns.isEmpty()) {
      return false;
    }
    if (columns.get().keys().isEmpty()) {
      s.report("schema", "declares no column", "add one column: type per line");
      return false;
    }
    boolean complete = true;
    List<String> keys = new ArrayList<>(columns.get().keys());
    for (int i = 0; i < keys.size(); i++) {
      String column = keys.get(i);
      if (splitDecimal(columns.get(), column, i + 1 < keys.size() ? keys.get(i + 1) : null)) {
        complete = false;
        i++; // the key '2)' is the type's rest, not a column: said with the type
        continue;
      }
      if (column.equals(PUNCTUATION_FIELD)) {
        columns
            .get()
            .report(
                column,
                "a column may not be named '"
                    + column
                    + "': a record with a '"
                    + column
                    + "' field is read as a punctuation of its partition's watermark, not as an"
                    + " event",
                "rename the column (in the records and here)");
      }
      Optional<String> type = columns.get().string(column, column + ": int64");
      if (type.isEmpty()) {
        complete = false;
        continue;
      }
      try {
        schema.put(column, ColumnType.parse(type.get()));
      } catch (IllegalArgumentException e) {
        complete = false;
        columns
            .get()
            .report(
                column, "column '" + column + "': " + e.getMessage(), "fix the type of " + column);
      }
    }
    return complete;
  }

  /** A decimal type cut at its comma by a YAML flow map: {@code decimal(12}. */
  private static final Pattern DECIMAL_CUT = Pattern.compile("(?i)decimal\\s*\\(\\s*\\d+\\s*");

  /** The rest of the cut type, read as the next key of the flow map: {@code 2)}. */
  private static final Pattern DECIMAL_REST = Pattern.compile("\\d+\\s*\\)");

  /**
   * Whether {@code column}'s type is a {@code decimal(p,s)} that a flow map ({@code schema: { a:
   * decimal(12,2) }}) split at its comma into a type {@code decimal(12} and a key {@code 2)}
   * without a value, the key being {@code next}; if so it is reported once, at the column, with the
   * quoting that keeps it whole (and the key is no column of its own to report again).
   */
  private static boolean splitDecimal(YamlMap columns, String column, String next) {
    Optional<String> type = columns.peek(column);
    if (type.isEmpty()
        || next == null
        || !DECIMAL_CUT.matcher(type.get().trim()).matches()
        || !DECIMAL_REST.matcher(next.trim()).matches()
        || !columns.hasNoValue(next)) {
      return false;
    }
    String whole = type.get().trim() + "," + next.trim();
    columns.report(
        column,
        "column '"
            + column
            + "': the comma in "
            + whole
            + " splits the flow map { ... } into '"
            + column
            + ": "
            + type.get().trim()
            + "' and a key '"
            + next.trim()
            + "'",
        "quote the type: " + column + ": \"" + whole + "\"");
    return true;
  }

  private static void checkEventTime(
      YamlMap s, String column, Map<String, ColumnType> schema, boolean schemaComplete) {
    List<String> timestamps = new ArrayList<>();
    schema.forEach(
        (name, type) -> {
          if (type.equals(ColumnType.TIMESTAMP)) {
            timestamps.add(name);
          }
        });
    String choose =
        timestamps.isEmpty()
            ? "add a column of type timestamp to the schema and name it here"
            : "name a timestamp column: " + String.join(", ", timestamps);
    ColumnType type = schema.get(column);
    if (type == null) {
      if (schemaComplete || !s.has("schema")) {
        Optional<String> closest = Names.closest(column, schema.keySet());
        s.report(
            "event_time",
            "'" + column + "' is not a column of the schema",
            closest.map(c -> "did you mean '" + c + "'? ").orElse("") + choose);
      }
    } else if (!type.equals(ColumnType.TIMESTAMP)) {
      s.report(
          "event_time",
          "'" + column + "' is " + type.withArticle() + " column, not a timestamp",
          "declare " + column + ": timestamp in the schema, or " + choose);
    }
  }

  private static String clockMessage(String key) {
    switch (key) {
      case "watermark":
        return "a watermark needs an event-time column";
      case "max_out_of_orderness":
        return "an out-of-orderness bound needs an event-time column";
      case "late_events":
        return "late_events needs an event-time column; without one nothing is late";
      default:
        return "idle_after needs an event-time column; without one there is no watermark to hold"
            + " back";
    }
  }
}
