package dev.streamform.policies.project;

import dev.streamform.core.time.Durations;
import dev.streamform.policies.declarations.DecisionsSpec;
import dev.streamform.policies.declarations.GateThresholds;
import dev.streamform.policies.declarations.LinearModel;
import dev.streamform.policies.declarations.ModelDeclaration;
import dev.streamform.policies.declarations.OutputTopics;
import dev.streamform.policies.declarations.SourceDeclaration;
import dev.streamform.policies.schema.ColumnType;
import dev.streamform.policies.sql.ModelQuery;
import dev.streamform.policies.sql.ModelSql;
import dev.streamform.policies.sql.OutputColumn;
import dev.streamform.policies.sql.SqlModelException;
import java.io.IOException;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.internals.Topic;

/**
 * Loads a project folder and checks the rules that span files: a model's query file exists and
 * parses, reads a declared source, produces its key columns, has a clock upstream for {@code
 * retention} and {@code window}, names no output column like a field its records add ({@code op},
 * {@code window_start}, {@code status}, ...), and names only its output columns in its effects.
 */
final class ProjectLoader {
  static final String MODELS_DIR = "models";

  /** The columns a windowed model adds to every output row (docs/semantics.md §6). */
  static final List<String> WINDOW_COLUMNS = List.of("window_start", "window_end");

  /**
   * The fields an upsert model's changelog record adds beside the query's columns ({@code
   * ModelSinks.changelogRecord}): a query column so named would be overwritten when it is written.
   */
  static final List<String> CHANGELOG_FIELDS = List.of("op", "__event");

  /**
   * The fields a windowed model's record adds beside the query's columns ({@code
   * ModelSinks.windowRecord}): a query column so named would be overwritten when it is written.
   */
  static final List<String> WINDOW_RECORD_FIELDS =
      List.of(
          "window_start",
          "window_end",
          "window_local",
          "status",
          "revision",
          "predecessor",
          "logical_window_id",
          "projection_id",
          "aggregate_digest",
          "offsets",
          "generation");

  private static final Pattern LINE_PREFIX = Pattern.compile("line (\\d+)(, column \\d+)?: ");

  private final Path dir;
  private final List<Problem> problems = new ArrayList<>();
  private final List<Problem> warnings = new ArrayList<>();

  /** How a folder is listed: the file system's, or in a test one that fails. */
  interface Listing {
    DirectoryStream<Path> list(Path dir, String glob) throws IOException;
  }

  private Listing listing = Files::newDirectoryStream;

  /** The source each model's query reads, for the models whose query parses. */
  private final Map<String, String> modelSources = new LinkedHashMap<>();

  /** Set when models/ could not be listed (said once, of the folder). */
  private boolean modelsUnlistable;

  private ProjectLoader(Path dir) {
    this.dir = dir;
  }

  static Project load(Path dir) throws InvalidProjectException {
    return new ProjectLoader(dir).load();
  }

  /** As {@link #load(Path)}, listing folders with {@code listing} (a test's failing one). */
  static Project load(Path dir, Listing listing) throws InvalidProjectException {
    ProjectLoader loader = new ProjectLoader(dir);
    loader.listing = listing;
    return loader.load();
  }

  /** The sources of {@code sources.yml} alone, checked: for fixtures of models written in Java. */
  static Map<String, SourceDeclaration> loadSources(Path dir) throws InvalidProjectException {
    ProjectLoader loader = new ProjectLoader(dir);
    loader.checkFolder();
    Optional<Map<String, SourcesFile.Entry>> sources =
        loader
            .readFile(
                SourcesFile.NAME,
                "create it with sources: and one source per name (connector, topic or path,"
                    + " schema)")
            .flatMap(text -> SourcesFile.read(dir, text, loader.problems));
    if (!loader.problems.isEmpty()) {
      throw new InvalidProjectException(inFileOrder(loader.problems));
    }
    Map<String, SourceDeclaration> checked = new LinkedHashMap<>();
    sources.get().forEach((name, entry) -> checked.put(name, entry.declaration().get()));
    return checked;
  }

  private void checkFolder() throws InvalidProjectException {
    if (!Files.exists(dir)) {
      throw new InvalidProjectException(
          List.of(
              Problem.ofFile(
                  dir.toString(),
                  "no such folder",
                  "give the folder that holds sources.yml, streamform.yml and models/")));
    }
    Optional<Path> project = projectHolding(dir);
    if (project.isPresent() && isEmptyFolder(dir)) {
      // a new folder: the user meant the project above it, or is starting a project here
      throw new InvalidProjectException(
          List.of(
              Problem.ofFile(
                  dir.toString(),
                  "is an empty folder inside project " + project.get() + ", nothing in it to check",
                  "give the project folder "
                      + project.get()
                      + ", or create sources.yml and streamform.yml in "
                      + dir
                      + " for a project of its own")));
    }
    if (project.isPresent()) {
      // e.g. gs/fixtures or gs/fixtures/f.yml given for gs: creating sources.yml there is wrong
      throw new InvalidProjectException(
          List.of(
              Problem.ofFile(
                  dir.toString(),
                  "is a "
                      + (Files.isDirectory(dir) ? "folder" : "file")
                      + " inside project "
                      + project.get()
                      + ", not a project folder",
                  "give the project folder "
                      + project.get()
                      + (isFixturesFolder(dir) || isFixtureFile(dir)
                          ? " (streamform test also takes a fixture file)"
                          : ""))));
    }
    if (isFixturesFolder(dir) && !isProject(dir)) {
      throw new InvalidProjectException(
          List.of(
              Problem.ofFile(
                  dir.toString(),
                  "holds fixtures, not a project",
                  "give the project folder (the one that holds sources.yml, streamform.yml and"
                      + " models/)")));
    }
    if (!Files.isDirectory(dir)) {
      throw new InvalidProjectException(
          List.of(
              Problem.ofFile(
                  dir.toString(),
                  "is a file, not a folder",
                  "give the folder that holds sources.yml, streamform.yml and models/")));
    }
    // a folder that cannot be listed hides its files: say that, not that sources.yml is missing
    Optional<Problem> unlistable = unlistable(dir, dir.toString());
    if (unlistable.isPresent()) {
      throw new InvalidProjectException(List.of(unlistable.get()));
    }
  }

  /** Why {@code folder} cannot be listed, as a problem of {@code name}; empty when it can. */
  private Optional<Problem> unlistable(Path folder, String name) {
    try (DirectoryStream<Path> files = listing.list(folder, "*")) {
      files.iterator().hasNext();
      return Optional.empty();
    } catch (IOException | java.nio.file.DirectoryIteratorException e) {
      return Optional.of(cannotBeListed(name, e));
    }
  }

  /** "{@code name}: cannot be listed: permission denied — check the folder's permissions". */
  private static Problem cannotBeListed(String name, Exception e) {
    IOException cause =
        e instanceof IOException io
            ? io
            : ((java.nio.file.DirectoryIteratorException) e).getCause();
    return Problem.ofFile(
        name, "cannot be listed: " + FileErrors.reason(cause), "check the folder's permissions");
  }

  /**
   * The project folder that holds {@code path} when {@code path} is not one itself: for a folder,
   * its parent when that holds sources.yml or streamform.yml; for a file, the folder holding it or
   * that folder's parent (a fixture file's project). Only so near, so that a new project folder
   * made inside another project is still told what it lacks.
   */
  static Optional<Path> projectHolding(Path path) {
    if (!Files.exists(path) || (Files.isDirectory(path) && isProject(path))) {
      return Optional.empty();
    }
    Path up = parentOf(path);
    for (int level = Files.isDirectory(path) ? 1 : 2; level > 0 && up != null; level--) {
      if (isProject(up)) {
        return Optional.of(up);
      }
      up = parentOf(up);
    }
    return Optional.empty();
  }

  private static Path parentOf(Path path) {
    Path parent = path.getParent();
    return parent == null && !path.isAbsolute() ? path.toAbsolutePath().getParent() : parent;
  }

  private static boolean isProject(Path dir) {
    return Files.isRegularFile(dir.resolve(SourcesFile.NAME))
        || Files.isRegularFile(dir.resolve(ModelsFile.NAME));
  }

  /** A folder with nothing in it. */
  private static boolean isEmptyFolder(Path dir) {
    if (!Files.isDirectory(dir)) {
      return false;
    }
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir)) {
      return !entries.iterator().hasNext();
    } catch (IOException e) {
      return false;
    }
  }

  /** A folder named fixtures that holds fixture files ({@link FixtureFile#filesIn}). */
  private static boolean isFixturesFolder(Path dir) {
    if (!Files.isDirectory(dir)
        || dir.getFileName() == null
        || !dir.getFileName().toString().equals(FixtureFile.DIR)) {
      return false;
    }
    // the fixtures test would find there: .yml or .yaml in any case, no hidden or backup file
    return !FixtureFile.filesIn(dir).isEmpty();
  }

  /** A fixture file ({@code .yml} or {@code .yaml}, any case) in a folder named fixtures. */
  static boolean isFixtureFile(Path file) {
    // named on the command line: a hidden file too, when that is what is asked for
    return Files.isRegularFile(file)
        && FixtureFile.hasFixtureExtension(file.getFileName().toString())
        && file.toAbsolutePath().getParent() != null
        && String.valueOf(file.toAbsolutePath().getParent().getFileName()).equals(FixtureFile.DIR);
  }

  private Project load() throws InvalidProjectException {
    checkFolder();
    Optional<Map<String, SourcesFile.Entry>> sources =
        readFile(
                SourcesFile.NAME,
                "create it with sources: and one source per name (connector, topic or path,"
                    + " schema)")
            .flatMap(text -> SourcesFile.read(dir, text, problems));
    Optional<String> modelsText =
        readFile(
            ModelsFile.NAME, "create it with models: and one model per name (materialized, key)");
    Optional<Map<String, ModelsFile.Entry>> models =
        modelsText.flatMap(text -> ModelsFile.read(text, problems, warnings));
    GateThresholds gates =
        models.isPresent()
            ? GatesSection.read(modelsText.get(), problems)
            : GateThresholds.defaults();

    Map<String, ModelDeclaration> checkedModels = new LinkedHashMap<>();
    if (models.isPresent()) {
      List<String> queries = queryFiles();
      for (ModelsFile.Entry model : models.get().values()) {
        checkModel(model, sources).ifPresent(m -> checkedModels.put(m.name(), m));
      }
      reportUndeclaredQueries(queries, models.get().keySet());
      checkTopics(models.get(), sources);
    }
    checkFixturesListable();

    if (!problems.isEmpty()) {
      throw new InvalidProjectException(inFileOrder(problems));
    }
    Map<String, SourceDeclaration> checkedSources = new LinkedHashMap<>();
    sources.get().forEach((name, entry) -> checkedSources.put(name, entry.declaration().get()));
    return Project.create(dir, checkedSources, checkedModels, warnings, gates);
  }

  private Optional<String> readFile(String name, String fix) {
    Path file = dir.resolve(name);
    if (!Files.isRegularFile(file)) {
      problems.add(
          Problem.ofFile(
              name,
              Files.isDirectory(file)
                  ? "is a folder in " + dir + ", not a file"
                  : "not found in " + dir,
              fix));
      return Optional.empty();
    }
    return readText(file, name);
  }

  private Optional<String> readText(Path file, String name) {
    try {
      String text = Files.readString(file, StandardCharsets.UTF_8);
      // a UTF-8 byte-order mark (Notepad's "UTF-8 with BOM") is no part of the text: SnakeYAML
      // skips it in a YAML file, and a query's lexer would refuse it as a character
      return Optional.of(text.startsWith("\uFEFF") ? text.substring(1) : text);
    } catch (CharacterCodingException e) {
      problems.add(NotUtf8.problem(file, name));
    } catch (IOException e) {
      problems.add(
          Problem.ofFile(
              name,
              FileErrors.cannotRead(e),
              FileErrors.fix(e, "create it", "check the file's permissions")));
    }
    return Optional.empty();
  }

  /** Checks a model against its query and the sources; empty when it has a problem. */
  private Optional<ModelDeclaration> checkModel(
      ModelsFile.Entry model, Optional<Map<String, SourcesFile.Entry>> declared) {
    if (!Names.isIdentifier(model.name())) {
      return Optional.empty(); // already reported; the name cannot name a query file
    }
    String sqlName = MODELS_DIR + "/" + model.name() + ".sql";
    Path sqlFile = dir.resolve(MODELS_DIR).resolve(model.name() + ".sql");
    YamlMap yaml = model.yaml();
    if (!Files.isRegularFile(sqlFile)) {
      if (modelsUnlistable) {
        return Optional.empty(); // said once, of the folder: whether the query exists is unknown
      }
      yaml.reportHere(
          "has no query: " + sqlName + " does not exist",
          "create "
              + sqlName
              + " with SELECT <key columns>, <aggregates> FROM source('<source>') GROUP BY <key"
              + " columns>");
      return Optional.empty();
    }
    Optional<String> sql = readText(sqlFile, sqlName);
    if (sql.isEmpty()) {
      return Optional.empty();
    }
    Optional<String> subject = Optional.of("model '" + model.name() + "'");
    ModelQuery query;
    try {
      query = ModelSql.parse(sql.get());
    } catch (SqlModelException e) {
      addSqlProblem(sqlName, subject, e.line(), e.getMessage());
      return Optional.empty();
    }
    modelSources.put(model.name(), query.source());
    if (declared.isEmpty()) {
      return Optional.empty(); // sources.yml is unusable: nothing to check the query against
    }
    Map<String, SourcesFile.Entry> sources = declared.get();
    SourcesFile.Entry source = sources.get(query.source());
    if (source == null) {
      String fix =
          Names.closest(query.source(), sources.keySet())
              .map(c -> "did you mean source('" + c + "')?")
              .orElse(
                  sources.isEmpty()
                      ? "declare it in sources.yml"
                      : "declare it in sources.yml or read one of: "
                          + String.join(", ", sources.keySet()));
      problems.add(
          Problem.of(
              sqlName,
              lineOf(sql.get(), query.source()),
              subject,
              Optional.empty(),
              "reads source '" + query.source() + "', which sources.yml does not declare",
              Optional.of(fix)));
      return Optional.empty();
    }
    for (String timed : List.of("retention", "window", "decisions")) {
      if (yaml.has(timed) && !source.eventTime()) {
        yaml.report(
            timed,
            timed
                + " needs an event-time source upstream; source '"
                + source.name()
                + "' has no event_time, so there is no clock to measure it by",
            "add event_time: <timestamp column> to source '"
                + source.name()
                + "' in sources.yml, or remove "
                + timed);
      }
    }
    checkEffectSubjects(model, query);
    checkAddedFields(model, query, sqlName, subject);
    if (source.schemaComplete()) {
      checkQuery(model, query, source.schema(), sqlName, subject);
      if (yaml.has("decisions")) {
        checkNumericFeatures(query, source, sqlName, subject);
      }
    }
    if (model.declaration().isEmpty() || source.declaration().isEmpty()) {
      return Optional.empty();
    }
    Optional<DecisionsSpec> decisions = model.declaration().get().decisions();
    if (decisions.isPresent()) {
      Optional<DecisionsSpec> checked = checkDecisions(yaml, decisions.get(), query, source);
      if (checked.isEmpty()) {
        return Optional.empty();
      }
      model.declaration().get().setDecisions(checked.get());
      warnAboutLateEventsDrop(model.name(), source);
    }
    return Optional.of(
        model
            .declaration()
            .get()
            .setSource(query.source())
            .setSqlFile(sqlFile)
            .setSql(sql.get())
            .build());
  }

  /**
   * Who writes or reads a topic first: a source (model null) or one of a model's outputs; {@code
   * name} is the topic's name.
   */
  private record TopicOwner(
      String name,
      String source,
      String model,
      OutputTopics.Topic topic,
      int line,
      boolean decides,
      boolean windowed) {}

  /**
   * Every topic a model writes (declared or default, of every kind it writes) is read by no source
   * and written by no other of the project's outputs (ADR 0146): a model's records in a source's
   * topic would be read as that source's events, and two outputs in one topic would be mixed. Two
   * names Kafka treats as one (its {@code Topic.hasCollision}: '.' and '_' alike) collide too:
   * Kafka refuses to create the later beside the first. Each collision is a problem at the later
   * declaration, naming the first.
   */
  private void checkTopics(
      Map<String, ModelsFile.Entry> models, Optional<Map<String, SourcesFile.Entry>> sources) {
    Map<String, TopicOwner> owners = new LinkedHashMap<>();
    // the same owners by Kafka's unified name (Topic.unifyCollisionChars)
    Map<String, TopicOwner> unified = new LinkedHashMap<>();
    sources.ifPresent(
        all ->
            all.values()
                .forEach(
                    e ->
                        e.topic()
                            .ifPresent(
                                t ->
                                    owners.putIfAbsent(
                                        t,
                                        new TopicOwner(
                                            t,
                                            e.name(),
                                            null,
                                            null,
                                            e.yaml().get().line("topic"),
                                            false,
                                            false)))));
    owners.values().forEach(o -> unified.putIfAbsent(Topic.unifyCollisionChars(o.name()), o));
    // every topic the project reads or writes, as Kafka sees it (the keys unified holds once
    // every model is seen): a suggested name must be none
    Set<String> inUse = new HashSet<>(unified.keySet());
    models.values().stream()
        .filter(m -> Names.isIdentifier(m.name()))
        .flatMap(m -> modelTopics(m, sources).stream())
        .forEach(t -> inUse.add(Topic.unifyCollisionChars(t.name())));
    for (ModelsFile.Entry model : models.values()) {
      if (!Names.isIdentifier(model.name())) {
        continue; // already reported: the name names no topic
      }
      YamlMap yaml = model.yaml();
      boolean decides = yaml.has("decisions");
      boolean windowed = yaml.has("window");
      for (OutputTopics.Topic topic : modelTopics(model, sources)) {
        TopicOwner here =
            new TopicOwner(
                topic.name(),
                null,
                model.name(),
                topic,
                topic.declared() ? yaml.line(topic.kind().key().get()) : yaml.line(),
                decides,
                windowed);
        TopicOwner first = owners.putIfAbsent(topic.name(), here);
        if (first == null) {
          first = unified.putIfAbsent(Topic.unifyCollisionChars(topic.name()), here);
        }
        if (first == null) {
          continue;
        }
        if (model.name().equals(first.model()) && !topic.declared() && first.topic().declared()) {
          // two of one model's own topics: said at the key that names the topic
          reportTopic(first, here, inUse);
        } else {
          reportTopic(here, first, inUse);
        }
      }
    }
  }

  /** Every topic {@code model} writes, declared or default, of every kind it writes. */
  private List<OutputTopics.Topic> modelTopics(
      ModelsFile.Entry model, Optional<Map<String, SourcesFile.Entry>> sources) {
    YamlMap yaml = model.yaml();
    Optional<YamlMap> source =
        Optional.ofNullable(modelSources.get(model.name()))
            .flatMap(name -> sources.map(all -> all.get(name)))
            .flatMap(SourcesFile.Entry::yaml);
    return OutputTopics.of(
        model.name(),
        yaml.has("decisions"),
        declaredTopic(yaml, "topic"),
        declaredTopic(yaml, "late_topic"),
        declaredTopic(yaml, "quarantine_topic"),
        source.map(s -> s.has("event_id")).orElse(false),
        source.map(s -> s.has("idle_after")).orElse(false));
  }

  /** The topic {@code key} names, when it is a legal topic name (else already reported). */
  private static Optional<String> declaredTopic(YamlMap yaml, String key) {
    return yaml.peek(key).filter(t -> Names.topicProblem(t).isEmpty());
  }

  /**
   * The problem of {@code later}'s topic, which {@code first} reads or writes already; {@code
   * inUse} holds every topic of the project as Kafka sees it.
   */
  private void reportTopic(TopicOwner later, TopicOwner first, Set<String> inUse) {
    OutputTopics.Topic topic = later.topic();
    Optional<String> key = topic.declared() ? topic.kind().key() : Optional.empty();
    StringBuilder message =
        new StringBuilder("writes its ")
            .append(outputWords(later))
            .append(" to topic '")
            .append(topic.name())
            .append('\'');
    if (!topic.declared()) {
      message.append(" (the default ").append(defaultWords(later)).append(')');
    }
    boolean kafkaAlike = !first.name().equals(topic.name());
    if (kafkaAlike) {
      message.append(", which collides with topic '").append(first.name()).append('\'');
    }
    String clash =
        kafkaAlike
            ? ": Kafka treats '.' and '_' in topic names alike and will not hold both"
            : null;
    if (first.source() != null) {
      message
          .append(", which source '")
          .append(first.source())
          .append("' reads (")
          .append(SourcesFile.NAME)
          .append(':')
          .append(first.line())
          .append(
              kafkaAlike ? ")" + clash : "): its records would be read as that source's events");
    } else {
      message
          .append(
              first.model().equals(later.model())
                  ? ", where it writes its "
                  : ", where model '" + first.model() + "' writes its ")
          .append(outputWords(first))
          .append(first.model().equals(later.model()) ? " too" : "")
          .append(" (line ")
          .append(first.line())
          .append(first.topic().declared() ? "" : ", the default " + defaultWords(first))
          .append(kafkaAlike ? ")" + clash : "): the two would be mixed in one topic");
    }
    String fix;
    if (key.isPresent()) {
      String free = OutputTopics.defaultName(topic.kind(), later.model(), later.decides());
      // suggested only when no topic of the project is it, exactly or as Kafka sees it
      fix =
          "name another topic"
              + (inUse.contains(Topic.unifyCollisionChars(free))
                  ? ""
                  : ", e.g. " + key.get() + ": " + free);
    } else if (topic.kind().key().isPresent()) {
      fix =
          "name another topic with " + topic.kind().key().get() + ": <topic>, or rename the model";
    } else if (first.source() != null) {
      fix = "rename the model, or read another topic in source '" + first.source() + "'";
    } else {
      fix =
          "rename the model, or give model '"
              + first.model()
              + "' another "
              + first.topic().kind().key().orElse("name");
    }
    problems.add(
        Problem.of(
            ModelsFile.NAME,
            later.line(),
            Optional.of("model '" + later.model() + "'"),
            key,
            message.toString(),
            Optional.of(fix)));
  }

  /** What a model writes to a topic of {@code owner}'s kind, e.g. {@code changelog}. */
  private static String outputWords(TopicOwner owner) {
    return switch (owner.topic().kind()) {
      case RECORDS ->
          owner.decides() ? "decisions" : owner.windowed() ? "window records" : "changelog";
      case LATE -> "late events";
      case QUARANTINE -> owner.decides() ? "dead letters" : "quarantined records";
      case RECONCILE -> "reconciled late events";
      case DUPLICATES -> "duplicates";
      case IDLE -> "idle markers";
    };
  }

  /** A default topic name as the docs write it: {@code <model>.late}. */
  private static String defaultWords(TopicOwner owner) {
    return "<model>" + OutputTopics.defaultSuffix(owner.topic().kind(), owner.decides());
  }

  /**
   * A scoring model's decisions against its query and source: the linear model file is read (its
   * digest is its content's), its weights name features or numeric source columns, and the arrival
   * column is a timestamp of the source.
   */
  /**
   * Warnings of a scoring model's declaration (ADR 0177): a lateness longer than the source's
   * {@code duplicates_within}, so that a repeat of an id that outlives the horizon before it is
   * late gets a decision of its own (a new event by the contract); and {@code max_clock_skew}
   * without {@code arrival}, which judges a fixture's events against the epoch.
   */
  private void warnAboutRepeatsAndArrivals(
      YamlMap decisions, DecisionsSpec spec, SourcesFile.Entry source) {
    Optional<java.time.Duration> within =
        source.declaration().flatMap(SourceDeclaration::duplicatesWithin);
    // an id is forgotten once W reaches its time + duplicates_within, and a repeat is late only
    // past its time + lateness (equal is on time, ADR 0198): equal durations leave a repeat at the
    // edge itself a decision of its own
    if (within.isPresent() && spec.lateness().compareTo(within.get()) >= 0) {
      String key = decisions.has("allowed_lateness") ? "allowed_lateness" : "lateness";
      String lateness = Durations.format(spec.lateness());
      String horizon = Durations.format(within.get());
      warnings.add(
          decisions.at(
              decisions.has(key) ? key : "features_over",
              "a repeat of an event_id of source '"
                  + source.name()
                  + "' is a new event once "
                  + horizon
                  + " (its duplicates_within) is reached, and it is late only past "
                  + lateness
                  + " ("
                  + key
                  + "): a repeat in between gets a decision of its own",
              "this is allowed; give duplicates_within longer than "
                  + lateness
                  + " on source '"
                  + source.name()
                  + "' in sources.yml, or a "
                  + key
                  + " shorter than "
                  + horizon
                  + ", unless a repeat that late is really a new event"));
    }
    // a late event reaches decisions until 2 x features_over + lateness after its time (their
    // time + range + lateness above its arrival watermark): a late repeat past the ids' horizon
    // before that is a second late event, revising or reconciling or updating state again
    boolean lateActs =
        spec.lateAction() != DecisionsSpec.LateAction.IGNORE || spec.lateUpdatesState();
    java.time.Duration reach = spec.featuresOver().multipliedBy(2).plus(spec.lateness());
    if (within.isPresent() && lateActs && within.get().compareTo(reach) < 0) {
      String key =
          spec.lateAction() == DecisionsSpec.LateAction.IGNORE
              ? "late_updates_state"
              : "late_action";
      String until = Durations.format(reach);
      String what =
          switch (spec.lateAction()) {
            case REVISE ->
                "revises decisions until "
                    + until
                    + " after its time (2 x features_over + lateness): a repeat in between"
                    + " revises them again, its values counted twice";
            case RECONCILE ->
                "names the decisions it would change until "
                    + until
                    + " after its time (2 x features_over + lateness): a repeat in between is"
                    + " reconciled again, a second row in the queue";
            default ->
                "updates the state later decisions read until "
                    + until
                    + " after its time (2 x features_over + lateness): a repeat in between is"
                    + " applied again, its values counted twice";
          };
      warnings.add(
          decisions.at(
              decisions.has(key) ? key : "features_over",
              "a late repeat of an event_id of source '"
                  + source.name()
                  + "' is a new event once "
                  + Durations.format(within.get())
                  + " (its duplicates_within) is reached, but a late event "
                  + what,
              "this is allowed; give duplicates_within: "
                  + until
                  + " or more on source '"
                  + source.name()
                  + "' in sources.yml, unless a repeat that late is really a new event"));
    }
    if (spec.maxClockSkew().isPresent() && spec.arrival().isEmpty()) {
      Optional<String> example =
          source.schema().entrySet().stream()
              .filter(c -> ColumnType.TIMESTAMP.equals(c.getValue()))
              .map(Map.Entry::getKey)
              .filter(
                  c ->
                      !source
                          .declaration()
                          .flatMap(SourceDeclaration::eventTime)
                          .map(c::equals)
                          .orElse(false))
              .findFirst();
      warnings.add(
          decisions.at(
              "max_clock_skew",
              "without arrival, an event's arrival is its record's ingest time — the wall clock"
                  + " in a run, the epoch (1970-01-01) for a fixture's events, so in a fixture"
                  + " every event is more than "
                  + Durations.format(spec.maxClockSkew().get())
                  + " ahead of its arrival and is dead-lettered",
              "this is allowed; name the column that says when a record arrived, e.g. arrival: "
                  + example.orElse("<timestamp column>")));
    }
  }

  /**
   * A warning at the source's {@code late_events: drop} when scoring model {@code model} reads it:
   * the scoring clock keeps late events, and the decisions' lateness and late_action decide what
   * one does, so the drop has no effect for the model.
   */
  private void warnAboutLateEventsDrop(String model, SourcesFile.Entry source) {
    source
        .yaml()
        .filter(s -> s.peek("late_events").filter("drop"::equals).isPresent())
        .ifPresent(
            s ->
                warnings.add(
                    s.at(
                        "late_events",
                        "for scoring model '"
                            + model
                            + "' the decisions' lateness and late_action decide what a late"
                            + " event does, so late_events: drop has no effect there (its late"
                            + " events are kept and judged by the lateness)",
                        "this is allowed; write late_events: keep (drop is the default), unless a"
                            + " model without window or decisions reads source '"
                            + source.name()
                            + "' and is to drop its late events")));
  }

  private Optional<DecisionsSpec> checkDecisions(
      YamlMap yaml, DecisionsSpec spec, ModelQuery query, SourcesFile.Entry source) {
    Optional<YamlMap> d = yaml.nested("decisions", "decisions: {...}");
    if (d.isEmpty()) {
      return Optional.empty();
    }
    int before = problems.size();
    Map<String, ColumnType> schema = source.schema();
    spec.arrival()
        .ifPresent(
            column -> {
              if (!ColumnType.TIMESTAMP.equals(schema.get(column))) {
                d.get()
                    .report(
                        "arrival",
                        "'"
                            + column
                            + "' is not a timestamp column of source '"
                            + source.name()
                            + "'",
                        "name the timestamp column that says when the record arrived, or remove"
                            + " arrival (the ingest time is used)");
              }
            });
    warnAboutRepeatsAndArrivals(d.get(), spec, source);
    DecisionsSpec checked = spec;
    if (spec.linearFile().isPresent()) {
      String file = spec.linearFile().get();
      Path path = dir.resolve(file);
      Optional<String> outside = ProjectFiles.outside(dir, file);
      if (outside.isPresent()) {
        d.get()
            .report(
                "linear",
                outside.get(),
                ProjectFiles.FIX + ", e.g. linear: models/<model>.linear.yml");
        return Optional.empty();
      }
      try {
        LinearModel linear = LinearModel.read(path);
        java.util.Set<String> inputs = new java.util.TreeSet<>();
        query.outputs().forEach(o -> inputs.add(o.name()));
        schema.forEach(
            (column, type) -> {
              if (type.isNumeric()) {
                inputs.add(column);
              }
            });
        for (String name : linear.weights().keySet()) {
          if (!inputs.contains(name)) {
            d.get()
                .report(
                    "linear",
                    file
                        + ": weight '"
                        + name
                        + "' names no feature of the query and no"
                        + " numeric column of source '"
                        + source.name()
                        + "'",
                    "weigh one of: " + String.join(", ", inputs));
          }
        }
        checked = spec.withLinear(linear);
      } catch (java.io.IOException e) {
        d.get()
            .report(
                "linear",
                file + " " + FileErrors.cannotRead(e),
                FileErrors.fix(
                    e,
                    "create it with bias: <number> and weights: {<feature or column>: <number>,"
                        + " ...}",
                    "give a readable file of bias: <number> and weights: {<feature or column>:"
                        + " <number>, ...}"));
      } catch (IllegalArgumentException e) {
        d.get()
            .report(
                "linear",
                file + " " + e.getMessage(),
                "write bias: <number> and weights: {<feature or column>: <number>, ...}");
      }
    }
    return problems.size() == before ? Optional.of(checked) : Optional.empty();
  }

  /**
   * An effect's subject is a key column or a window column: it is part of the effect key, which
   * must not change with a correction. An aggregate would move the key with its value, so a
   * correction would prepare a second effect for the window and never cancel the first.
   */
  private void checkEffectSubjects(ModelsFile.Entry model, ModelQuery query) {
    Set<String> keys = new LinkedHashSet<>();
    Set<String> produced = new LinkedHashSet<>();
    for (OutputColumn column : query.outputs()) {
      produced.add(column.name());
      if (column.kind() == OutputColumn.Kind.KEY) {
        keys.add(column.name());
      }
    }
    model.key().ifPresent(keys::addAll);
    Set<String> allowed = new LinkedHashSet<>(keys);
    allowed.addAll(WINDOW_COLUMNS);
    String example = "subject: " + allowed.iterator().next();
    for (ModelsFile.EffectEntry effect : model.effects()) {
      effect
          .subject()
          .filter(column -> !allowed.contains(column))
          .ifPresent(
              column -> {
                if (produced.contains(column)) {
                  effect
                      .yaml()
                      .report(
                          "subject",
                          "'"
                              + column
                              + "' is an aggregate, not a key or window column: the effect key"
                              + " would change with its value, so a correction would prepare a"
                              + " second effect for the window and never cancel the first",
                          "name a key or window column ("
                              + String.join(", ", allowed)
                              + "), e.g. "
                              + example
                              + "; test the aggregate in when:");
                } else {
                  effect
                      .yaml()
                      .report(
                          "subject",
                          "'"
                              + column
                              + "' is not a key or window column of the model"
                              + " (they are "
                              + String.join(", ", allowed)
                              + ")",
                          Names.closest(column, allowed)
                                  .map(c -> "did you mean '" + c + "'? ")
                                  .orElse("")
                              + "name a key or window column, e.g. "
                              + example);
                }
              });
    }
  }

  /**
   * Refuses a query column named like a field the model's records add beside it (compared ignoring
   * case, as SQL names are): its value would be overwritten when the record is written. Refuses
   * too, compared as written (as fixture keys are), a column no fixture row of the model could give
   * because the row names something else so: {@code op} in a windowed model (an upsert row's
   * change) and a scoring model's feature named like a key of its decision rows. A scoring model
   * writes its columns inside its decisions' {@code key} and {@code features}, so its records add
   * none beside them.
   */
  private void checkAddedFields(
      ModelsFile.Entry model, ModelQuery query, String sqlName, Optional<String> subject) {
    if (model.yaml().has("decisions")) {
      checkFeatureNames(model, query, sqlName, subject);
      return;
    }
    boolean windowed = model.yaml().has("window");
    List<String> added = windowed ? WINDOW_RECORD_FIELDS : CHANGELOG_FIELDS;
    for (OutputColumn column : query.outputs()) {
      boolean fixtureOp = windowed && column.name().equals("op");
      if (!fixtureOp && !added.contains(column.name().toLowerCase(java.util.Locale.ROOT))) {
        continue;
      }
      String fix = renameFix(column);
      if (windowed && !fixtureOp) {
        fix += ", or remove window from the model in streamform.yml";
      }
      problems.add(
          Problem.of(
              sqlName,
              column.line(),
              subject,
              Optional.empty(),
              "the query outputs a column named '"
                  + column.name()
                  + (fixtureOp
                      ? "', which no fixture row of a windowed model can give: op is an upsert"
                          + " model's change, and a windowed row says its revision and status"
                          + " instead"
                      : "', which "
                          + (windowed ? "a windowed model" : "an upsert model's changelog")
                          + " adds to every record itself ("
                          + String.join(", ", added)
                          + "), so its value would be lost"),
              Optional.of(fix)));
    }
  }

  /**
   * A scoring model's features are numbers: each is read as a double for its scorer, so {@code MIN}
   * or {@code MAX} of a text, a timestamp or a bool passed {@code check} and then failed the first
   * decision (a class cast), on Kafka every event at every restart (review of scoring #3).
   */
  private void checkNumericFeatures(
      ModelQuery query, SourcesFile.Entry source, String sqlName, Optional<String> subject) {
    for (OutputColumn column : query.outputs()) {
      if (column.kind() != OutputColumn.Kind.AGGREGATE
          || column.argument().isEmpty()
          || column.function().orElse(null) == OutputColumn.Function.COUNT) {
        continue; // a count is a number whatever it counts
      }
      ColumnType type = source.schema().get(column.argument().get());
      if (type == null || type.isNumeric()) {
        continue; // COUNT(*), or a column checkQuery already reported
      }
      problems.add(
          Problem.of(
              sqlName,
              column.line(),
              subject,
              Optional.empty(),
              "feature '"
                  + column.name()
                  + "' is "
                  + column.function().map(Enum::name).orElse("")
                  + "("
                  + column.argument().get()
                  + ") of "
                  + type.withArticle()
                  + " column: a scoring model's features are numbers its scorer reads",
              Optional.of(
                  "aggregate a numeric column of source '"
                      + source.name()
                      + "' (int64, double or decimal), or count it, e.g. COUNT("
                      + column.argument().get()
                      + ") AS "
                      + column.argument().get()
                      + "_count")));
    }
  }

  /**
   * A scoring model's feature (an aggregate of its query) named like a key its decision rows give
   * themselves ({@link Fixture#DECISION_ROW_KEYS}): a fixture row could not give the feature beside
   * that key, and {@code --accept} would write the key twice.
   */
  private void checkFeatureNames(
      ModelsFile.Entry model, ModelQuery query, String sqlName, Optional<String> subject) {
    Optional<String> linear =
        model.declaration().flatMap(d -> d.decisions()).flatMap(DecisionsSpec::linearFile);
    for (OutputColumn column : query.outputs()) {
      if (column.kind() != OutputColumn.Kind.AGGREGATE
          || !Fixture.DECISION_ROW_KEYS.contains(column.name())) {
        continue;
      }
      problems.add(
          Problem.of(
              sqlName,
              column.line(),
              subject,
              Optional.empty(),
              "the query outputs a feature named '"
                  + column.name()
                  + "', which a decision row of the model's fixtures gives itself ("
                  + String.join(", ", Fixture.DECISION_ROW_KEYS)
                  + "), so no fixture row could give the feature",
              Optional.of(
                  renameFix(column)
                      + linear.map(f -> ", and weigh that name in " + f).orElse(""))));
    }
  }

  /** How to rename an output column: with AS in the query, and a key column in key: too. */
  private static String renameFix(OutputColumn column) {
    String fix = "rename it in the query with AS <another name>";
    if (column.kind() == OutputColumn.Kind.KEY) {
      fix +=
          " ("
              + column.argument().orElse(column.name())
              + " AS <another name>, and name that in key: in streamform.yml)";
    }
    return fix;
  }

  /** The query's own problems against the source schema, then the key against its output. */
  private void checkQuery(
      ModelsFile.Entry model,
      ModelQuery query,
      Map<String, ColumnType> schema,
      String sqlName,
      Optional<String> subject) {
    List<String> queryProblems = query.problems(schema);
    for (String message : queryProblems) {
      addSqlProblem(sqlName, subject, 0, message);
    }
    if (!queryProblems.isEmpty() || model.key().isEmpty()) {
      return;
    }
    Map<String, ColumnType> output = query.outputColumns(schema);
    // The GROUP BY columns in their order, each under the one name the query selects it as
    // (query.problems() refused a GROUP BY column not selected, or selected twice).
    Set<String> groupBy = new LinkedHashSet<>();
    for (String keyColumn : query.keyColumns()) {
      for (OutputColumn column : query.outputs()) {
        if (column.kind() == OutputColumn.Kind.KEY && column.argument().get().equals(keyColumn)) {
          groupBy.add(column.name());
        }
      }
    }
    List<String> key = model.key().get();
    boolean each = true;
    for (String column : key) {
      if (!output.containsKey(column)) {
        each = false;
        model
            .yaml()
            .report(
                "key",
                "'"
                    + column
                    + "' is not a column the query produces (it produces "
                    + String.join(", ", output.keySet())
                    + ")",
                Names.closest(column, output.keySet())
                        .map(c -> "did you mean '" + c + "'? ")
                        .orElse("")
                    + "name the query's GROUP BY columns in key:");
      } else if (!groupBy.contains(column)) {
        each = false;
        model
            .yaml()
            .report(
                "key",
                "'" + column + "' is an aggregate, not a GROUP BY column of the query",
                "name the query's GROUP BY columns in key: [" + String.join(", ", groupBy) + "]");
      }
    }
    if (each && !new TreeSet<>(key).equals(new TreeSet<>(groupBy))) {
      model
          .yaml()
          .report(
              "key",
              "["
                  + String.join(", ", key)
                  + "] is not the query's GROUP BY ["
                  + String.join(", ", groupBy)
                  + "], so one key could have several rows",
              "write key: [" + String.join(", ", groupBy) + "]");
    }
    for (ModelsFile.EffectEntry effect : model.effects()) {
      effect
          .condition()
          .ifPresent(
              condition -> {
                boolean known = true;
                for (String column : condition.columns()) {
                  if (!output.containsKey(column)) {
                    known = false;
                    effect
                        .yaml()
                        .report(
                            "when",
                            "names '"
                                + column
                                + "', which is not an output column of the query"
                                + " (it produces "
                                + String.join(", ", output.keySet())
                                + ")",
                            Names.closest(column, output.keySet())
                                    .map(c -> "did you mean '" + c + "'? ")
                                    .orElse("")
                                + "a condition reads the window's output row only");
                  }
                }
                if (known) {
                  List<String> typed = new ArrayList<>();
                  for (String column : condition.columns()) {
                    typed.add(column + " is " + output.get(column));
                  }
                  for (String problem : condition.problems(output)) {
                    effect
                        .yaml()
                        .report(
                            "when",
                            problem,
                            "a condition reads the model's output row"
                                + (typed.isEmpty() ? "" : ": " + String.join(", ", typed)));
                  }
                }
              });
    }
  }

  /**
   * A problem from the SQL parser; its messages may start with {@code line N: }, which the
   * problem's line says instead.
   */
  private void addSqlProblem(String sqlName, Optional<String> subject, int line, String message) {
    Matcher at = LINE_PREFIX.matcher(message);
    if (at.lookingAt()) {
      line = line > 0 ? line : Integer.parseInt(at.group(1));
      message = message.substring(at.end());
    }
    problems.add(Problem.of(sqlName, line, subject, Optional.empty(), message, Optional.empty()));
  }

  /**
   * The names of the query files in models/ (empty when there is no such folder); when the folder
   * cannot be listed, that problem, and {@link #modelsUnlistable} is set: whether a model's query
   * exists is then unknown, and not said to be missing.
   */
  private List<String> queryFiles() {
    Path models = dir.resolve(MODELS_DIR);
    List<String> names = new ArrayList<>();
    if (!Files.isDirectory(models)) {
      return names;
    }
    try (DirectoryStream<Path> files = listing.list(models, "*.sql")) {
      for (Path file : files) {
        names.add(file.getFileName().toString().replaceFirst("\\.sql$", ""));
      }
    } catch (IOException | java.nio.file.DirectoryIteratorException e) {
      modelsUnlistable = true;
      problems.add(cannotBeListed(MODELS_DIR, e));
      names.clear();
    }
    return names;
  }

  /**
   * A fixtures/ folder that cannot be listed is a problem: its fixtures would be none to check or
   * test, said as "no fixtures" or not at all (found by a read-only audit of the command line).
   */
  private void checkFixturesListable() {
    Path fixtures = dir.resolve(FixtureFile.DIR);
    if (!Files.isDirectory(fixtures)) {
      return;
    }
    unlistable(fixtures, FixtureFile.DIR).ifPresent(problems::add);
  }

  /** A query file in models/ that no model declares: likely a misspelt name. */
  private void reportUndeclaredQueries(List<String> queries, Set<String> declared) {
    List<String> undeclared = new ArrayList<>();
    for (String name : queries) {
      if (!declared.contains(name)) {
        undeclared.add(name);
      }
    }
    undeclared.sort(Comparator.naturalOrder());
    for (String name : undeclared) {
      problems.add(
          Problem.ofFile(
              MODELS_DIR + "/" + name + ".sql",
              "no model '" + name + "' in streamform.yml",
              Names.closest(name, declared)
                      .map(c -> "did you mean '" + c + "'? rename the file, or ")
                      .orElse("")
                  + "declare "
                  + name
                  + ": under models: in streamform.yml, or delete the file"));
    }
  }

  /** The 1-based line of the first mention of {@code word} in {@code text}, or 0. */
  private static int lineOf(String text, String word) {
    int at = text.indexOf(word);
    return at < 0 ? 0 : (int) text.substring(0, at).chars().filter(c -> c == '\n').count() + 1;
  }

  private static List<Problem> inFileOrder(List<Problem> problems) {
    List<Problem> sorted = new ArrayList<>(problems);
    sorted.sort(
        Comparator.comparingInt((Problem p) -> fileRank(p.file()))
            .thenComparing(Problem::file)
            .thenComparingInt(Problem::line));
    return sorted;
  }

  private static int fileRank(String file) {
    return file.equals(SourcesFile.NAME) ? 0 : file.equals(ModelsFile.NAME) ? 1 : 2;
  }
}
