package dev.streamform.policies.project;

import dev.streamform.core.time.Durations;
import dev.streamform.policies.declarations.DecisionsSpec;
import dev.streamform.policies.declarations.EarlyResults;
import dev.streamform.policies.declarations.EffectDeclaration;
import dev.streamform.policies.declarations.Materialization;
import dev.streamform.policies.declarations.ModelDeclaration;
import dev.streamform.policies.declarations.WindowSpec;
import dev.streamform.policies.sql.ModelSql;
import dev.streamform.policies.sql.SqlModelException;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.DayOfWeek;
import java.time.Duration;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalInt;
import java.util.Set;

/** Reads and checks {@code streamform.yml}: the rules of a model's declaration on its own. */
final class ModelsFile {
  static final String NAME = "streamform.yml";

  static final List<String> KEYS =
      List.of(
          "materialized",
          "key",
          "retention",
          "window",
          "allowed_lateness",
          "early_results",
          "generation",
          "topic",
          "late_topic",
          "quarantine_topic",
          "effects",
          "decisions",
          "time_zone",
          "week_starts");

  /**
   * The keys of one effect, {@code effects: [{type: reward, subject: ..., when: ..., provider:
   * {...}}]}.
   */
  static final List<String> EFFECT_KEYS = List.of("type", "subject", "when", "provider");

  /** The keys an effect's provider must have. */
  static final List<String> PROVIDER_KEYS = List.of("kind", "url", "idempotency", "receipts");

  /**
   * The keys an effect's provider may have: its credential comes from the environment or a file.
   */
  static final List<String> PROVIDER_OPTIONAL_KEYS =
      List.of("authorization_env", "authorization_file");

  static final String AUTHORIZATION_FIX =
      "declare the credential outside the committed files: authorization_env: REWARDS_AUTHORIZATION"
          + " (an environment variable holding the Authorization header's value, e.g. \"Bearer"
          + " ...\") or authorization_file: <a file inside the project folder>";

  /** Query parameter names (or their _-separated parts) that carry a credential in a URL. */
  private static final Set<String> CREDENTIAL_PARAMS =
      Set.of(
          "token",
          "key",
          "apikey",
          "secret",
          "password",
          "passwd",
          "pwd",
          "auth",
          "signature",
          "sig",
          "credential",
          "credentials");

  static final String EFFECT_EXAMPLE =
      "effects: [{type: reward, subject: merchant_id, when: \"revenue >= 1000\", provider: {kind:"
          + " webhook, url: \"http://127.0.0.1:8099/rewards\", idempotency: key, receipts: true}}]";

  static final String PROVIDER_EXAMPLE =
      "provider: {kind: webhook, url: \"http://127.0.0.1:8099/rewards\","
          + " idempotency: key, receipts: true}";

  /** The longest model name: {@code <model>.quarantine}, its default topic, is a legal topic. */
  static final int MAX_MODEL_NAME = 249 - ".quarantine".length();

  /**
   * The keys of a scoring model's {@code decisions:} (docs/semantics.md §11; README "Decisions").
   */
  static final List<String> DECISIONS_KEYS =
      List.of(
          "features_over",
          "scorer",
          "linear",
          "contract",
          "allowed_lateness",
          "lateness",
          "late_action",
          "late_updates_state",
          "max_clock_skew",
          "arrival");

  /** The keys of a hopping window, {@code window: {size: 1h, every: 15m}}. */
  static final List<String> WINDOW_KEYS = List.of("size", "every");

  private ModelsFile() {}

  /**
   * One declared model, before its query is read.
   *
   * @param yaml the model's mapping, to report problems found later at the right line
   * @param declaration the declaration so far (no query yet); present when it has no problem
   * @param key the key columns, when they could be read
   */
  record Entry(
      String name,
      YamlMap yaml,
      Optional<ModelDeclaration.Builder> declaration,
      Optional<List<String>> key,
      List<EffectEntry> effects) {}

  /**
   * One item of a model's {@code effects:}, kept to check it against the query's output columns.
   *
   * @param yaml the item's mapping, to report at the right line
   * @param subject the subject column, when it could be read
   * @param condition {@code when}, parsed, when it parses
   */
  record EffectEntry(
      YamlMap yaml, Optional<String> subject, Optional<ModelSql.Condition> condition) {}

  /**
   * Every model declared in {@code text}, in file order; problems go to {@code problems}. Empty
   * when the file is not even a {@code models:} map, so checks that depend on it are skipped.
   */
  static Optional<Map<String, Entry>> read(String text, List<Problem> problems) {
    return read(text, problems, new ArrayList<>());
  }

  /** As {@link #read(String, List)}, with warnings (allowed but doubtful) to {@code warnings}. */
  static Optional<Map<String, Entry>> read(
      String text, List<Problem> problems, List<Problem> warnings) {
    Map<String, Entry> models = new LinkedHashMap<>();
    Optional<YamlMap> top =
        YamlMap.parseFile(NAME, text, "models: followed by one model per name", problems);
    if (top.isEmpty()) {
      return Optional.empty();
    }
    top.get().allowOnly(List.of("models", "gates"));
    if (!top.get().has("models")) {
      top.get().reportMissing("models", "start the file with models: and one model per name");
      return Optional.empty();
    }
    Optional<YamlMap> all =
        top.get().map("models", Optional.empty(), "models: followed by one model per name");
    if (all.isEmpty()) {
      return Optional.empty();
    }
    for (String name : all.get().keys()) {
      int before = problems.size();
      if (!Names.isIdentifier(name)) {
        all.get()
            .report(
                name,
                "'" + name + "' is not a usable model name (it names models/" + name + ".sql)",
                "use ASCII letters (a-z, A-Z), digits and _ (starting with a letter or _)");
      } else if (name.length() > MAX_MODEL_NAME) {
        all.get()
            .report(
                name,
                "is "
                    + name.length()
                    + " characters long: its topic "
                    + name
                    + ".quarantine would be longer than Kafka's 249",
                "use at most " + MAX_MODEL_NAME + " characters");
      }
      all.get()
          .map(
              name,
              Optional.of("model '" + name + "'"),
              name + ": followed by its keys (materialized, key, ...)")
          .ifPresent(m -> models.put(name, read(name, m, before, problems, warnings)));
    }
    return Optional.of(models);
  }

  private static Entry read(
      String name, YamlMap m, int problemsBefore, List<Problem> problems, List<Problem> warnings) {
    m.allowOnly(KEYS);
    ModelDeclaration.Builder b = ModelDeclaration.builder().setName(name);
    m.choice("materialized", Materialization.class, "upsert").ifPresent(b::setMaterialized);

    String keyExample = "key: [customer_id]";
    Optional<List<String>> key = m.stringList("key", keyExample);
    if (!m.has("key")) {
      m.reportMissing("key", "add key: [<column>, ...] naming the columns the query groups by");
    }
    key.ifPresent(
        columns -> {
          // each repeated column once, with how often it is named
          Map<String, Integer> named = new LinkedHashMap<>();
          columns.forEach(column -> named.merge(column, 1, Integer::sum));
          named.forEach(
              (column, times) -> {
                if (times > 1) {
                  m.report(
                      "key",
                      "names '" + column + "' " + (times == 2 ? "twice" : times + " times"),
                      "list each key column once");
                }
              });
          if (columns.isEmpty()) {
            m.report("key", "is empty", "name the columns the query groups by, e.g. " + keyExample);
          } else {
            b.setKey(columns);
          }
        });

    m.duration("retention", "30d")
        .ifPresent(
            retention -> {
              if (retention.isZero()) {
                m.report(
                    "retention",
                    "retention cannot be 0s: a key's state would be dropped as soon as"
                        + " the watermark reaches its latest event",
                    "give how long a key's state lives after its latest event, e.g. retention: 30d,"
                        + " or remove retention to keep state forever");
              } else {
                b.setRetention(retention);
              }
            });
    if (m.has("retention") && m.has("window")) {
      m.report(
          "retention",
          "a windowed model has no retention: a window's state lives until the"
              + " window is final (its end + allowed_lateness)",
          "remove retention, and give allowed_lateness: <duration> to say how long corrections are"
              + " accepted");
    }
    Optional<WindowSpec> window = window(m).flatMap(w -> zoned(m, w, warnings));
    window.ifPresent(b::setWindow);
    if (!m.has("window")) {
      for (String windowOnly : List.of("time_zone", "week_starts")) {
        if (m.has(windowOnly)) {
          m.report(
              windowOnly,
              windowOnly + " applies to windowed models only",
              "add window: 1d (or 1w, 1mo) or remove " + windowOnly);
        }
      }
    }
    decisions(m).ifPresent(b::setDecisions);
    for (String windowedOnly : List.of("allowed_lateness", "early_results")) {
      if (m.has(windowedOnly) && !m.has("window")) {
        m.report(
            windowedOnly,
            windowedOnly + " applies to windowed models only",
            "add window: <duration> or remove " + windowedOnly);
      }
    }
    m.duration("allowed_lateness", "10m")
        .ifPresent(
            lateness -> {
              b.setAllowedLateness(lateness);
              if (window.flatMap(WindowSpec::calendarUnit).orElse(null)
                      == WindowSpec.CalendarUnit.MONTH
                  && lateness.compareTo(Duration.ofDays(28)) > 0) {
                warnings.add(
                    m.at(
                        "allowed_lateness",
                        "allowed_lateness "
                            + Durations.format(lateness)
                            + " is longer than a month (28 days, February's length): a month's"
                            + " window stays open for corrections after the next month's window has"
                            + " ended, so the state of two or more months is kept at once",
                        "this is allowed; give allowed_lateness: 28d or less unless corrections"
                            + " really come that late"));
              }
            });
    m.string("early_results", "early_results: every 100 events")
        .ifPresent(
            text -> {
              try {
                b.setEarlyResults(EarlyResults.parse(text));
              } catch (IllegalArgumentException e) {
                m.report(
                    "early_results",
                    e.getMessage(),
                    "write early_results: none, early_results: every 100 events or early_results:"
                        + " every 1m");
              }
            });
    m.string("generation", "generation: 2")
        .ifPresent(
            text -> {
              String t = text.trim();
              if (t.matches("\\d{1,9}") && Integer.parseInt(t) >= 1) {
                b.setGeneration(Integer.parseInt(t));
              } else {
                m.report(
                    "generation",
                    "'" + text + "' is not a generation",
                    "write a whole number from 1, e.g. generation: 2 (the default is 1)");
              }
            });
    topic(m, "topic", "customer_metrics").ifPresent(b::setTopic);
    topic(m, "late_topic", "orders_late").ifPresent(b::setLateTopic);
    topic(m, "quarantine_topic", "orders_quarantine").ifPresent(b::setQuarantineTopic);

    List<EffectEntry> effects = new ArrayList<>();
    if (m.has("effects")) {
      if (!m.has("window")) {
        m.report(
            "effects",
            "effects apply to windowed models only: an effect is keyed by its window",
            "add window: <duration> or remove effects");
      }
      List<EffectDeclaration> declared = new ArrayList<>();
      Map<String, Integer> types = new LinkedHashMap<>();
      for (YamlMap item : m.nestedList("effects", EFFECT_EXAMPLE)) {
        effect(item, effects)
            .ifPresent(
                e -> {
                  Integer first = types.putIfAbsent(e.type(), item.line("type"));
                  if (first != null) {
                    item.report(
                        "type",
                        "'"
                            + e.type()
                            + "' is declared twice (first on line "
                            + first
                            + "): the type is part of the effect's key and names its provider",
                        "give each effect its own type, e.g. type: " + e.type() + "_2");
                  } else {
                    declared.add(e);
                  }
                });
      }
      b.setEffects(declared);
    }

    Optional<ModelDeclaration.Builder> declaration =
        problems.size() == problemsBefore ? Optional.of(b) : Optional.empty();
    return new Entry(name, m, declaration, key, effects);
  }

  /**
   * One item of {@code effects:}: its own rules (required keys, the condition parses, the provider
   * is a webhook at an http(s) URL with its capabilities stated). Its entry goes to {@code
   * entries}; the declaration is empty when the item has a problem.
   */
  private static Optional<EffectDeclaration> effect(YamlMap e, List<EffectEntry> entries) {
    List<String> effectKeys = new ArrayList<>(EFFECT_KEYS);
    effectKeys.add("mode");
    e.allowOnly(effectKeys);
    boolean ok = true;
    for (String required : EFFECT_KEYS) {
      if (!e.has(required)) {
        ok = false;
        e.reportMissing(required, "write " + EFFECT_EXAMPLE);
      }
    }
    Optional<String> type = e.string("type", "type: reward");
    if (type.isPresent() && !Names.isIdentifier(type.get())) {
      ok = false;
      e.report(
          "type",
          "'" + type.get() + "' is not a usable effect type",
          "use ASCII letters (a-z, A-Z), digits and _ (starting with a letter or _), e.g. type:"
              + " reward");
    }
    Optional<String> subject = e.string("subject", "subject: merchant_id");
    Optional<String> when = e.string("when", "when: \"revenue >= 1000\"");
    Optional<ModelSql.Condition> condition = Optional.empty();
    if (when.isPresent()) {
      try {
        condition = Optional.of(ModelSql.condition(when.get()));
      } catch (SqlModelException x) {
        e.report(
            "when",
            "is not a condition: " + x.getMessage(),
            "write a condition over the model's output columns in its SQL expression language,"
                + " e.g. when: \"revenue >= 1000\"");
      }
    }
    entries.add(new EffectEntry(e, subject, condition));
    Optional<String> url = Optional.empty();
    Optional<String> authorizationEnv = Optional.empty();
    Optional<String> authorizationFile = Optional.empty();
    boolean idempotency = false;
    boolean receipts = false;
    Optional<YamlMap> provider = e.nested("provider", PROVIDER_EXAMPLE);
    if (provider.isPresent()) {
      YamlMap p = provider.get();
      List<String> allowed = new ArrayList<>(PROVIDER_KEYS);
      allowed.addAll(PROVIDER_OPTIONAL_KEYS);
      p.allowOnly(allowed);
      for (String required : PROVIDER_KEYS) {
        if (!p.has(required)) {
          ok = false;
          p.reportMissing(
              required,
              "write "
                  + PROVIDER_EXAMPLE
                  + " (idempotency: key when the provider dedupes by the Idempotency-Key header,"
                  + " else none; receipts: true when it answers GET <url>/<effect key>, else"
                  + " false)");
        }
      }
      Optional<String> kind = p.string("kind", "kind: webhook");
      if (kind.isPresent() && !kind.get().equals(EffectDeclaration.WEBHOOK)) {
        ok = false;
        p.report(
            "kind",
            "'"
                + kind.get()
                + "' is not a provider kind"
                + (kind.get().trim().equalsIgnoreCase(EffectDeclaration.WEBHOOK)
                    ? " (words are written in lower case: write " + EffectDeclaration.WEBHOOK + ")"
                    : ""),
            "write kind: webhook (the only kind so far)");
      }
      url = p.string("url", "url: \"http://127.0.0.1:8099/rewards\"");
      if (url.isPresent() && !isHttpUrl(url.get())) {
        ok = false;
        p.report(
            "url",
            "'" + url.get() + "' is not an http(s) URL",
            "write the webhook's endpoint, e.g. url: \"http://127.0.0.1:8099/rewards\"");
      }
      OptionalInt port =
          url.filter(ModelsFile::isHttpUrl)
              .map(ModelsFile::impossiblePort)
              .orElse(OptionalInt.empty());
      if (port.isPresent()) {
        // the URI parser takes any digits; the dispatcher could never connect, and each effect
        // would be claimed for nothing (ADR 0185)
        ok = false;
        p.report(
            "url",
            "'"
                + url.get()
                + "' has port "
                + port.getAsInt()
                + ", outside 1 to 65535: nothing could be sent there",
            "write the port the webhook listens on, e.g. url: \"http://127.0.0.1:8099/rewards\"");
      }
      Optional<String> credential =
          url.filter(ModelsFile::isHttpUrl).flatMap(ModelsFile::credentialInUrl);
      if (credential.isPresent()) {
        ok = false;
        p.report(
            "url",
            "carries a credential ("
                + credential.get()
                + "): it would be committed and copied"
                + " into every effect row",
            "remove it from the URL and " + AUTHORIZATION_FIX);
      }
      authorizationEnv = p.string("authorization_env", "authorization_env: REWARDS_AUTHORIZATION");
      if (authorizationEnv.isPresent()
          && !authorizationEnv.get().matches("[A-Za-z_][A-Za-z0-9_]*")) {
        ok = false;
        p.report(
            "authorization_env",
            "'" + authorizationEnv.get() + "' is not an environment variable name",
            "name the variable that holds the Authorization header's value, e.g."
                + " authorization_env: REWARDS_AUTHORIZATION");
      }
      authorizationFile =
          p.string("authorization_file", "authorization_file: secrets/rewards-authorization");
      if (authorizationFile.isPresent() && !insideProject(authorizationFile.get())) {
        ok = false;
        p.report(
            "authorization_file",
            "'" + authorizationFile.get() + "' is not a path inside the project folder",
            "give a relative path that stays inside the project, e.g. authorization_file:"
                + " secrets/rewards-authorization (keep it out of version control)");
      }
      if (authorizationEnv.isPresent() && authorizationFile.isPresent()) {
        ok = false;
        p.report(
            "authorization_file",
            "is declared beside authorization_env",
            "declare one of authorization_env and authorization_file, not both");
      }
      Optional<String> idem = p.string("idempotency", "idempotency: key");
      if (idem.isPresent() && !List.of("key", "none").contains(idem.get())) {
        ok = false;
        p.report(
            "idempotency",
            "'" + idem.get() + "' is neither key nor none",
            "write idempotency: key when the provider dedupes by the Idempotency-Key header, else"
                + " idempotency: none");
      }
      idempotency = idem.filter("key"::equals).isPresent();
      Optional<String> rec = p.string("receipts", "receipts: true");
      if (rec.isPresent() && !List.of("true", "false").contains(rec.get())) {
        ok = false;
        p.report(
            "receipts",
            "'" + rec.get() + "' is neither true nor false",
            "write receipts: true when the provider answers GET <url>/<effect key> with a receipt,"
                + " else receipts: false");
      }
      receipts = rec.filter("true"::equals).isPresent();
    }
    Optional<String> mode = e.string("mode", "mode: incremental");
    if (mode.isPresent() && !List.of("once", "incremental").contains(mode.get())) {
      ok = false;
      e.report(
          "mode",
          "'" + mode.get() + "' is neither once nor incremental",
          "write mode: incremental when the provider takes adjustments (a correction after the"
              + " effect was sent becomes a delta effect), else mode: once (the default: a"
              + " compensation record for a person)");
    }
    if (!ok || type.isEmpty() || subject.isEmpty() || condition.isEmpty() || url.isEmpty()) {
      return Optional.empty();
    }
    EffectDeclaration declared =
        EffectDeclaration.webhook(
            type.get(),
            subject.get(),
            when.get(),
            url.get(),
            idempotency,
            receipts,
            authorizationEnv,
            authorizationFile);
    return Optional.of(
        mode.filter("incremental"::equals).isPresent() ? declared.incrementally() : declared);
  }

  /**
   * What in an http(s) URL looks like a credential — user info, or a query parameter named like one
   * ({@code token=}, {@code api_key=}, {@code secret=}, {@code password=}, ...) — named without its
   * value; empty when nothing does.
   */
  static Optional<String> credentialInUrl(String text) {
    URI uri = URI.create(text);
    if (uri.getRawUserInfo() != null) {
      return Optional.of("user info before the host");
    }
    String query = uri.getRawQuery();
    if (query == null) {
      return Optional.empty();
    }
    for (String pair : query.split("&")) {
      String name = pair.split("=", 2)[0];
      for (String part : name.toLowerCase(Locale.ROOT).split("[^a-z0-9]+")) {
        if (CREDENTIAL_PARAMS.contains(part)) {
          return Optional.of("query parameter '" + name + "'");
        }
      }
    }
    return Optional.empty();
  }

  /** A relative path that stays inside the folder it is relative to. */
  private static boolean insideProject(String path) {
    try {
      java.nio.file.Path p = java.nio.file.Path.of(path);
      return !path.isBlank()
          && !p.isAbsolute()
          && !p.normalize().startsWith("..")
          && !p.normalize().toString().isEmpty();
    } catch (java.nio.file.InvalidPathException e) {
      return false;
    }
  }

  /**
   * The port of an http(s) URL when it is one no connection can be made to (0, or past 65535);
   * empty when it is given in range or not given (the scheme's default).
   */
  private static OptionalInt impossiblePort(String text) {
    try {
      int port = new URI(text).getPort();
      return port == 0 || port > 65535 ? OptionalInt.of(port) : OptionalInt.empty();
    } catch (URISyntaxException x) {
      return OptionalInt.empty();
    }
  }

  private static boolean isHttpUrl(String text) {
    try {
      URI uri = new URI(text);
      return uri.getScheme() != null
          && List.of("http", "https").contains(uri.getScheme().toLowerCase(Locale.ROOT))
          && uri.getHost() != null;
    } catch (URISyntaxException x) {
      return false;
    }
  }

  /** {@code decisions: {features_over: 1h, linear: <file> | scorer: <class>, ...}}. */
  private static Optional<DecisionsSpec> decisions(YamlMap m) {
    if (!m.has("decisions")) {
      return Optional.empty();
    }
    String example = "decisions: {features_over: 1h, linear: models/<model>.linear.yml}";
    for (String other : List.of("window", "retention")) {
      if (m.has(other)) {
        m.report(
            other,
            "a scoring model (decisions) keeps its features for its range and lateness;"
                + " it has no "
                + other,
            "remove " + other + ", or move decisions to a model of its own");
      }
    }
    Optional<YamlMap> nested = m.nested("decisions", example);
    if (nested.isEmpty()) {
      return Optional.empty();
    }
    YamlMap d = nested.get();
    d.allowOnly(DECISIONS_KEYS);
    DecisionsSpec.Builder b = DecisionsSpec.builder();
    boolean ok = true;
    if (!d.has("features_over")) {
      d.reportMissing(
          "features_over",
          "give the trailing event-time range of the features, e.g. features_over: 1h");
      ok = false;
    }
    Optional<Duration> range = d.duration("features_over", "1h");
    if (range.isPresent() && range.get().isZero()) {
      d.report(
          "features_over",
          "a feature range cannot be 0s",
          "give a positive range, e.g. features_over: 1h");
      ok = false;
    }
    range.ifPresent(b::setFeaturesOver);
    if (d.has("scorer") == d.has("linear")) {
      m.report(
          "decisions",
          d.has("scorer")
              ? "names both a scorer class and a linear model"
              : "names no model to score with",
          "give linear: models/<model>.linear.yml (bias and weights) or scorer: <a Scorer class>");
      ok = false;
    }
    d.string("scorer", "scorer: com.example.RiskScorer").ifPresent(b::setScorer);
    d.string("linear", "linear: models/receipt_risk.linear.yml").ifPresent(b::setLinearFile);
    d.choice("contract", DecisionsSpec.Contract.class, "as_of_occurrence or latest_available")
        .ifPresent(b::setContract);
    // allowed_lateness, as for windows (docs/concepts/glossary.md); "lateness" is its older name
    d.duration(d.nameOf("allowed_lateness", "lateness"), "10m").ifPresent(b::setLateness);
    d.choice("late_action", DecisionsSpec.LateAction.class, "ignore, revise or reconcile")
        .ifPresent(b::setLateAction);
    d.string("late_updates_state", "late_updates_state: true")
        .ifPresent(
            text -> {
              if (text.equals("true") || text.equals("false")) {
                b.setLateUpdatesState(Boolean.parseBoolean(text));
              } else {
                d.report(
                    "late_updates_state",
                    "'" + text + "' is not true or false",
                    "write late_updates_state: true (late events feed later decisions) or false"
                        + " (the default)");
              }
            });
    d.duration("max_clock_skew", "5m").ifPresent(b::setMaxClockSkew);
    d.string("arrival", "arrival: received_at").ifPresent(b::setArrival);
    if (d.has("arrival") && !d.has("max_clock_skew")) {
      d.report(
          "arrival",
          "the arrival column is only used to judge clock skew",
          "add max_clock_skew: <duration> or remove arrival");
    }
    if (!ok || range.isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(b.build());
    } catch (IllegalStateException e) {
      return Optional.empty(); // a value above was reported already
    }
  }

  /**
   * {@code window: 1h} (tumbling) or {@code window: {size: 1h, every: 15m}} (hopping; {@code every}
   * defaults to the size); empty, with a problem, when it is neither.
   */
  private static Optional<WindowSpec> window(YamlMap m) {
    if (!m.has("window")) {
      return Optional.empty();
    }
    if (!m.isMap("window")) {
      Optional<String> text = m.string("window", "window: 1h");
      if (text.isEmpty()) {
        return Optional.empty();
      }
      Optional<WindowSpec.CalendarUnit> unit = WindowSpec.CalendarUnit.parse(text.get());
      if (unit.isPresent()) {
        return Optional.of(
            WindowSpec.calendar(unit.get(), WindowSpec.DEFAULT_ZONE, false, DayOfWeek.MONDAY));
      }
      Optional<WindowSpec.CalendarUnit> wrongCase = wrongCaseCalendarUnit(text.get());
      if (wrongCase.isPresent()) {
        m.report(
            "window",
            "'" + text.get() + "' is not a window" + lowerCaseHint(wrongCase.get()),
            "write " + calendarWindow(wrongCase.get()));
        return Optional.empty();
      }
      return m.duration(
              "window", "1h (or 1d, 1w or 1mo for calendar days, weeks or months in time_zone)")
          .flatMap(
              size -> {
                if (size.isZero()) {
                  m.report(
                      "window",
                      "a window cannot be 0s long",
                      "give the window's size, e.g. window: 1h");
                  return Optional.empty();
                }
                return Optional.of(WindowSpec.tumbling(size));
              });
    }
    Optional<YamlMap> hopping = m.nested("window", "window: {size: 1h, every: 15m}");
    YamlMap w = hopping.get();
    w.allowOnly(WINDOW_KEYS);
    if (!w.has("size")) {
      w.reportMissing("size", "give the window's size, e.g. window: {size: 1h, every: 15m}");
    }
    if (calendarUnitInMap(w)) {
      return Optional.empty();
    }
    Optional<Duration> size = w.duration("size", "1h");
    Optional<Duration> every = w.duration("every", "15m");
    boolean positive = true;
    for (String key : WINDOW_KEYS) {
      Optional<Duration> d = key.equals("size") ? size : every;
      if (d.isPresent() && d.get().isZero()) {
        positive = false;
        w.report(
            key,
            "a window's " + key + " cannot be 0s",
            key.equals("size")
                ? "give the window's size, e.g. window: {size: 1h, every: 15m}"
                : "give how far apart windows start, e.g. every: 15m, or remove every for tumbling"
                    + " windows");
      }
    }
    if (size.isEmpty() || !positive || (w.has("every") && every.isEmpty())) {
      return Optional.empty();
    }
    long perEvent = size.get().toMillis() / every.orElse(size.get()).toMillis();
    if (perEvent > WindowSpec.MAX_WINDOWS_PER_EVENT) {
      // each event is in size/every windows: beyond this a fixture or a job does little but open
      // windows
      w.report(
          "every",
          "every event would be in "
              + perEvent
              + " windows (size / every); the most is "
              + WindowSpec.MAX_WINDOWS_PER_EVENT,
          "make every at least "
              + Durations.format(
                  java.time.Duration.ofMillis(
                      Math.max(
                          1,
                          -Math.floorDiv(
                              -size.get().toMillis(), WindowSpec.MAX_WINDOWS_PER_EVENT))))
              + " (size / "
              + WindowSpec.MAX_WINDOWS_PER_EVENT
              + "), or the size smaller");
      return Optional.empty();
    }
    try {
      return Optional.of(WindowSpec.hopping(size.get(), every.orElse(size.get())));
    } catch (IllegalArgumentException e) {
      String fix =
          every.get().compareTo(size.get()) > 0
              ? "make every at most the size, e.g. window: {size: "
                  + Durations.format(every.get())
                  + ", every: "
                  + Durations.format(size.get())
                  + "}, or write window: "
                  + Durations.format(size.get())
                  + " for tumbling windows"
              : "make the size a multiple of every, e.g. window: {size: "
                  + Durations.format(
                      every
                          .get()
                          .multipliedBy(
                              Math.max(1, size.get().toMillis() / every.get().toMillis())))
                  + ", every: "
                  + Durations.format(every.get())
                  + "}";
      w.report("every", e.getMessage(), fix);
      return Optional.empty();
    }
  }

  /**
   * True, with a problem each, when {@code size} or {@code every} is a calendar week or month
   * ({@code 1w}, {@code 1mo}): those are not durations, and a calendar window is only the whole
   * value of {@code window:} (docs/decisions/0021, 0086). The message says what was asked: a
   * calendar size with no other {@code every} is a tumbling calendar window written the wrong way;
   * with another {@code every} it is a calendar window that hops; a calendar {@code every} under a
   * fixed size starts fixed windows on a calendar. ({@code 1d} is also the duration of 24 hours,
   * and is read as one here.)
   */
  private static boolean calendarUnitInMap(YamlMap w) {
    Optional<WindowSpec.CalendarUnit> size = calendarUnit(w, "size");
    Optional<WindowSpec.CalendarUnit> every = calendarUnit(w, "every");
    if (size.isPresent()
        && (!w.has("every") || every.equals(size))) { // tumbling: no hop was asked for
      WindowSpec.CalendarUnit unit = size.get();
      w.report(
          "size",
          written(w, "size", unit)
              + " is a calendar "
              + unitName(unit)
              + ", not a duration: size and every are fixed durations, and calendar "
              + unitName(unit)
              + "s are declared as the whole value, window: "
              + unit.yamlText(),
          "write "
              + calendarWindow(unit)
              + ", or a fixed size, e.g. window: {size: "
              + fixedLength(unit)
              + "}");
      return true;
    }
    if (size.isEmpty() && every.isPresent()) {
      WindowSpec.CalendarUnit unit = every.get();
      w.report(
          "every",
          written(w, "every", unit)
              + " is a calendar "
              + unitName(unit)
              + ", not a duration: fixed windows start every fixed interval from the epoch",
          "write a fixed every, e.g. every: " + fixedLength(unit) + ", or " + calendarWindow(unit));
      return true;
    }
    for (String key : WINDOW_KEYS) {
      Optional<WindowSpec.CalendarUnit> unit = key.equals("size") ? size : every;
      if (unit.isEmpty()) {
        continue;
      }
      w.report(
          key,
          written(w, key, unit.get())
              + " is a calendar "
              + unitName(unit.get())
              + ", and calendar windows do not hop",
          "write "
              + calendarWindow(unit.get())
              + ", or a fixed "
              + key
              + ", e.g. "
              + (key.equals("size")
                  ? "window: {size: "
                      + fixedLength(unit.get())
                      + ", every: "
                      + fixedEvery(w, unit.get())
                      + "}"
                  : "every: " + fixedLength(unit.get())));
    }
    return size.isPresent() || every.isPresent();
  }

  /**
   * The {@code every} to offer with the fixed size nearest calendar {@code unit}: the author's own
   * when that fixed size accepts it (a multiple of it, at most {@link
   * WindowSpec#MAX_WINDOWS_PER_EVENT} windows an event), else a day ({@code 24h}), which it always
   * does.
   */
  private static String fixedEvery(YamlMap w, WindowSpec.CalendarUnit unit) {
    Duration size = Durations.parse(fixedLength(unit));
    try {
      Duration every = Durations.parse(w.peek("every").orElse(""));
      if (!every.isZero()
          && size.toMillis() / every.toMillis() <= WindowSpec.MAX_WINDOWS_PER_EVENT) {
        WindowSpec.hopping(size, every); // refuses an every longer than size or not dividing it
        return Durations.format(every);
      }
    } catch (IllegalArgumentException e) {
      // not a duration, or one that size refuses: offer one that it accepts
    }
    return Durations.format(Duration.ofDays(1)); // 24h: "1d" alone would read as a calendar day
  }

  /**
   * {@code key}'s value when it is {@code 1w} or {@code 1mo} (not {@code 1d}, also 24 hours), in
   * any case: {@code 1Mo} is given the lower-case spelling by {@link #written}.
   */
  private static Optional<WindowSpec.CalendarUnit> calendarUnit(YamlMap w, String key) {
    return w.peek(key)
        .flatMap(
            text ->
                WindowSpec.CalendarUnit.parse(text)
                    .filter(u -> u != WindowSpec.CalendarUnit.DAY)
                    .or(() -> wrongCaseCalendarUnit(text)));
  }

  /**
   * How a message names {@code key}'s calendar {@code unit}: {@code 1mo} as written, or {@code
   * '1Mo' (units are written in lower case: write 1mo)}.
   */
  private static String written(YamlMap w, String key, WindowSpec.CalendarUnit unit) {
    String text = w.peek(key).orElse(unit.yamlText());
    return text.equals(unit.yamlText()) ? text : "'" + text + "'" + lowerCaseHint(unit);
  }

  /**
   * The calendar week or month that {@code text} spells in the wrong case ({@code 1Mo}, {@code
   * 1MO}, {@code 1W}): not durations, so the duration's own lower-case hint never names them (ADR
   * 0083). {@code 1D} is a duration too, and that hint already says {@code 1d}.
   */
  private static Optional<WindowSpec.CalendarUnit> wrongCaseCalendarUnit(String text) {
    return WindowSpec.CalendarUnit.parse(text.toLowerCase(Locale.ROOT))
        .filter(u -> u != WindowSpec.CalendarUnit.DAY && !u.yamlText().equals(text));
  }

  /** What a wrong-case calendar unit is told (ADR 0083): its lower-case spelling. */
  private static String lowerCaseHint(WindowSpec.CalendarUnit unit) {
    return " (units are written in lower case: write " + unit.yamlText() + ")";
  }

  private static String unitName(WindowSpec.CalendarUnit unit) {
    return unit == WindowSpec.CalendarUnit.WEEK ? "week" : "month";
  }

  /** The fixed duration nearest a calendar week or month, offered instead of it. */
  private static String fixedLength(WindowSpec.CalendarUnit unit) {
    return unit == WindowSpec.CalendarUnit.WEEK ? "7d" : "30d";
  }

  /** How a calendar window of {@code unit} is declared, and with what. */
  private static String calendarWindow(WindowSpec.CalendarUnit unit) {
    return "window: "
        + unit.yamlText()
        + " for calendar "
        + unitName(unit)
        + "s ("
        + (unit == WindowSpec.CalendarUnit.WEEK
            ? "with time_zone and week_starts"
            : "with time_zone")
        + ")";
  }

  /** Half-hour and 45-minute zones, named in messages (an example, not a list to check against). */
  static final String ODD_OFFSET_ZONES =
      "zones with half-hour offsets include Asia/Kolkata (+05:30),"
          + " Australia/Adelaide (+09:30/+10:30), America/St_Johns (-03:30/-02:30) and Asia/Tehran"
          + " (+03:30); Asia/Kathmandu (+05:45) and Australia/Eucla (+08:45) are at 45 minutes";

  /**
   * {@code window} with the model's {@code time_zone} and {@code week_starts} applied
   * (docs/semantics.md §6.22 to §6.24); empty, with a problem, when they do not fit it. A zone on a
   * fixed window never moves it, whatever its offsets (§6.24): one whose offsets the window's start
   * interval does not divide is allowed with a warning (docs/decisions/0070).
   */
  private static Optional<WindowSpec> zoned(YamlMap m, WindowSpec window, List<Problem> warnings) {
    boolean ok = true;
    Optional<ZoneId> zone = Optional.empty();
    if (m.has("time_zone")) {
      Optional<String> text = m.string("time_zone", "time_zone: Europe/Berlin");
      String name = text.map(String::trim).orElse(null);
      if (name == null) {
        ok = false;
      } else if (!ZoneId.getAvailableZoneIds().contains(name)) {
        Optional<String> closest = closestZone(name);
        if (FIXED_OFFSET.matcher(name).matches()) {
          m.report(
              "time_zone",
              "'"
                  + name
                  + "' is a fixed offset from UTC, not a time zone: a local day follows its"
                  + " region's clock changes",
              "write the region's IANA name, e.g. time_zone: Europe/Berlin, or time_zone: UTC");
        } else if (abbreviation(name).isPresent()) {
          m.report(
              "time_zone",
              "'"
                  + name
                  + "' is a time zone abbreviation, not a zone: a local day follows its region's"
                  + " clock changes, which an abbreviation does not name",
              ZoneAbbreviations.fix(abbreviation(name).get()));
        } else if (closest.isPresent()) {
          m.report(
              "time_zone",
              "'" + name + "' is not an IANA time zone name",
              "did you mean '" + closest.get() + "'? write time_zone: " + closest.get());
        } else {
          m.report(
              "time_zone",
              "'" + name + "' is not an IANA time zone name",
              "write one, e.g. time_zone: Europe/Berlin, America/New_York or UTC");
        }
        ok = false;
      } else {
        zone = Optional.of(ZoneId.of(name));
      }
      if (zone.isPresent() && !window.isCalendar()) {
        List<ZoneOffset> odd = WindowSpec.misalignedOffsets(zone.get(), window.every());
        if (!odd.isEmpty()) {
          warnings.add(
              m.at(
                  "time_zone",
                  name
                      + " has the offset "
                      + odd.get(0)
                      + ", not a whole multiple of "
                      + Durations.format(window.every())
                      + ": fixed windows ("
                      + window.describe()
                      + ") stay aligned to the epoch (docs/semantics.md §6.24), so in "
                      + name
                      + " they do not begin on the local "
                      + Durations.format(window.every())
                      + " boundaries; "
                      + ODD_OFFSET_ZONES,
                  "this is allowed (the windows stay on the epoch's boundaries); for local days,"
                      + " weeks or months write window: 1d, 1w or 1mo; for windows on local"
                      + " boundaries give one whose start interval divides every offset of "
                      + name
                      + " (e.g. "
                      + alignedEvery(zone.get())
                      + ")"));
        }
      }
    }
    DayOfWeek weekStarts = DayOfWeek.MONDAY;
    if (m.has("week_starts")) {
      Optional<String> text = m.string("week_starts", "week_starts: monday");
      if (window.calendarUnit().orElse(null) != WindowSpec.CalendarUnit.WEEK) {
        m.report(
            "week_starts",
            "week_starts applies to weekly windows only (window: 1w), not to "
                + (window.isCalendar()
                    ? WindowSpec.calendar(
                            window.calendarUnit().get(),
                            zone.orElse(WindowSpec.DEFAULT_ZONE),
                            zone.isPresent(),
                            DayOfWeek.MONDAY)
                        .describe()
                    : zone.map(window::withTimeZone).orElse(window).describe()),
            "remove week_starts, or write window: 1w");
        ok = false;
      } else if (text.isPresent()) {
        try {
          weekStarts = DayOfWeek.valueOf(text.get().trim().toUpperCase(Locale.ROOT));
        } catch (IllegalArgumentException e) {
          m.report(
              "week_starts",
              "'" + text.get() + "' is not a day of the week",
              "write week_starts: monday (or tuesday ... sunday)");
          ok = false;
        }
      } else {
        ok = false;
      }
    }
    if (!ok) {
      return Optional.empty();
    }
    if (window.isCalendar()) {
      return Optional.of(
          WindowSpec.calendar(
              window.calendarUnit().get(),
              zone.orElse(WindowSpec.DEFAULT_ZONE),
              zone.isPresent(),
              weekStarts));
    }
    return Optional.of(zone.map(window::withTimeZone).orElse(window));
  }

  /** The longest of 1h, 30m, 15m, 5m, 1m that divides every offset of {@code zone}. */
  private static String alignedEvery(ZoneId zone) {
    for (Duration d :
        List.of(
            Duration.ofHours(1),
            Duration.ofMinutes(30),
            Duration.ofMinutes(15),
            Duration.ofMinutes(5),
            Duration.ofMinutes(1))) {
      if (WindowSpec.misalignedOffsets(zone, d).isEmpty()) {
        return "window: " + Durations.format(d);
      }
    }
    return "window: 1s";
  }

  /**
   * {@code Z}, {@code +02:00}, {@code -0500}, {@code UTC+2}, {@code GMT-5:30}: an offset, no zone.
   */
  private static final java.util.regex.Pattern FIXED_OFFSET =
      java.util.regex.Pattern.compile("(?i)z|(?:utc|gmt|ut)?\\s*[+-]\\s*\\d{1,2}(?::?\\d{2})?");

  /**
   * The region zones {@code name} is a common abbreviation of ({@code PST}, {@code ist}), unless it
   * is a zone's name in another case ({@code cet} is {@code CET}, a zone).
   */
  private static Optional<List<ZoneAbbreviations.Region>> abbreviation(String name) {
    boolean aZoneInOtherCase =
        ZoneId.getAvailableZoneIds().stream().anyMatch(z -> z.equalsIgnoreCase(name));
    return aZoneInOtherCase ? Optional.empty() : ZoneAbbreviations.regions(name);
  }

  /**
   * The IANA name closest to {@code name}: the same name in other case, else one whose city is
   * {@code name} ({@code Berlin}, {@code new york}), else one near enough by edit distance to be a
   * typo; none for a name without a letter, and none by edit distance for a name that looks like an
   * abbreviation (2 to 5 upper-case letters: {@code PST} is not {@code CET}, which is nearest its
   * spelling but hours away).
   */
  static Optional<String> closestZone(String name) {
    List<String> zones = new ArrayList<>(ZoneId.getAvailableZoneIds());
    java.util.Collections.sort(zones);
    String city = name.replace(' ', '_');
    for (String z : zones) {
      if (z.equalsIgnoreCase(name)) {
        return Optional.of(z);
      }
    }
    for (String z : zones) {
      if (z.contains("/") && z.substring(z.lastIndexOf('/') + 1).equalsIgnoreCase(city)) {
        return Optional.of(z);
      }
    }
    if (!name.matches(".*\\p{L}.*") || ZoneAbbreviations.looksLikeOne(name)) {
      return Optional.empty();
    }
    return Names.closest(name, zones);
  }

  /** A topic name under {@code key}: a legal Kafka topic name (it names an output file too). */
  private static Optional<String> topic(YamlMap m, String key, String example) {
    return m.string(key, key + ": " + example)
        .filter(
            t -> {
              Optional<String> problem = Names.topicProblem(t);
              problem.ifPresent(p -> m.report(key, p, Names.topicFix(key, example)));
              return problem.isEmpty();
            });
  }
}
