package dev.streamform.policies.project;

import java.io.IOException;
import java.io.Serializable;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.provider.FileConfigProvider;

/**
 * Kafka client settings from a {@code .properties} file ({@code kafka.properties:} of a kafka
 * source in {@code sources.yml}, {@code kafka.properties=} of a runner profile, or {@code
 * --kafka-properties}): any consumer, producer or admin client property, e.g. {@code
 * security.protocol}, {@code sasl.mechanism}, {@code sasl.jaas.config}, {@code ssl.truststore.*}.
 *
 * <p>A value may hold references, so that secrets stay out of files ({@code $${} is a literal {@code
 * ${}): {@code ${NAME}}, an environment variable, and {@code ${file:/ABSOLUTE/PATH:KEY}}, the value
 * of {@code KEY} in that {@code .properties} file, read by Kafka's own {@code FileConfigProvider}
 * (the syntax of Kafka's config providers; e.g. a mounted Kubernetes secret). A reference is kept
 * as written until {@link #resolve} replaces it, which happens where a Kafka client is created: a
 * job on a cluster resolves it on the worker, so the job it is submitted as, and its savepoints,
 * hold no secret. Every setting remembers its file and line, so an unset variable is reported as
 * {@code kafka.properties:4: sasl.jaas.config names ${KAFKA_PASSWORD}, which is not set}.
 *
 * <p>Guarantees: {@link #read} returns only files without problems: every line is {@code
 * key=value} with a value, no key twice, well-formed references, none of the (de)serializer keys
 * Streamform sets itself, and no secret written out literally: a key that holds a secret ({@link
 * #isSecret}) has references for values, and in {@code sasl.jaas.config} every option that holds
 * one ({@code password=}, {@code clientSecret=}, any {@code *secret*}, {@code *token*}, {@code
 * *credential*}, {@code *passphrase*} option) is a reference — in every file alike: a project's, a
 * profile's and a {@code --kafka-properties} file, whose literal would travel in the job graph.
 * Immutable and serializable.
 */
public final class KafkaClientProperties implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Properties Streamform sets itself for every client it creates. */
  public static final Set<String> RESERVED =
      Set.of("key.serializer", "value.serializer", "key.deserializer", "value.deserializer");

  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");

  /** {@code file:/ABSOLUTE/PATH:KEY}, Kafka's FileConfigProvider reference. */
  private static final Pattern FILE_REFERENCE = Pattern.compile("file:(/[^:}]+):([^:}]+)");

  /** A JAAS option, {@code name=value} or {@code name="value"}. */
  private static final Pattern JAAS_OPTION =
      Pattern.compile("([A-Za-z_][A-Za-z0-9_.-]*)\\s*=\\s*(\"[^\"]*\"|'[^']*'|[^\\s;\"']+)");

  /**
   * A JAAS option that names a secret-looking word but holds none: a location ({@code
   * oauth.token.endpoint.uri}) or Kafka's SCRAM flag {@code tokenauth} (ADR 0118).
   */
  private static final Pattern NOT_A_SECRET_OPTION =
      Pattern.compile("(?i)tokenauth|.*(url|uri)|.*endpoint.*");

  /** The name of a JAAS option (or of a property) that holds a secret. */
  private static final Pattern SECRET_NAME =
      Pattern.compile(
          "(?i).*(password|secret|token|credential|passphrase|api_?key|private_?key).*");

  /**
   * One {@code key=value} line.
   *
   * @param value as written: references not yet resolved
   * @param file the file as it was named (relative to the project for a source's file)
   * @param line 1-based line where the setting starts
   * @param folder the absolute folder of the file, against which a relative {@link #LOCATIONS} path
   *     is read (ADR 0124); null when unknown
   */
  public record Setting(String key, String value, String file, int line, String folder)
      implements Serializable {
    public Setting(String key, String value, String file, int line) {
      this(key, value, file, line, null);
    }

    /** Where the setting was written, {@code file:line}. */
    public String origin() {
      return file + ":" + line;
    }

    /** True when the value names at least one environment variable. */
    public boolean hasReference() {
      return !variables(value).isEmpty();
    }

    /** True when the key holds a secret or the value comes from the environment. */
    public boolean hidden() {
      return isSecret(key) || hasReference();
    }
  }

  /** A reference to an environment variable that is not set. */
  public static final class UnsetVariableException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    UnsetVariableException(String message) {
      super(message);
    }
  }

  private final List<Setting> settings;

  private KafkaClientProperties(List<Setting> settings) {
    this.settings = List.copyOf(settings);
  }

  /** {@code settings} as read, problems or not (to check them further). */
  static KafkaClientProperties of(List<Setting> settings) {
    return new KafkaClientProperties(settings);
  }

  /** No settings: a plaintext connection with Kafka's defaults. */
  public static KafkaClientProperties none() {
    return new KafkaClientProperties(List.of());
  }

  /**
   * Reads and checks {@code file}, named {@code shownAs} in problems; a secret written out
   * literally is a problem: it must be a reference.
   *
   * @throws InvalidProjectException listing every problem, each with file, line and fix
   */
  public static KafkaClientProperties read(Path file, String shownAs)
      throws InvalidProjectException {
    List<Problem> problems = new ArrayList<>();
    List<Setting> settings = read(file, shownAs, problems);
    if (!problems.isEmpty()) {
      throw new InvalidProjectException(problems);
    }
    return new KafkaClientProperties(settings);
  }

  /** As {@link #read(Path, String)}, adding problems to {@code problems}. */
  static List<Setting> read(Path file, String shownAs, List<Problem> problems) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (java.nio.charset.CharacterCodingException e) {
      problems.add(NotUtf8.problem(file, shownAs));
      return List.of();
    } catch (IOException e) {
      problems.add(
          Problem.ofFile(
              shownAs,
              FileErrors.cannotRead(e),
              FileErrors.fix(
                  e,
                  "give a .properties file of Kafka client settings",
                  "give a readable .properties file of Kafka client settings")));
      return List.of();
    }
    List<Setting> settings = new ArrayList<>();
    Map<String, Integer> seen = new LinkedHashMap<>();
    Path parent = file.toAbsolutePath().normalize().getParent();
    String folder = parent == null ? null : parent.toString();
    String[] lines = text.split("\r?\n|\r", -1);
    for (int i = 0; i < lines.length; i++) {
      int start = i + 1;
      StringBuilder logical = new StringBuilder(lines[i]);
      // a line that ends in an odd number of backslashes continues on the next (Properties' rule)
      while (continues(logical) && i + 1 < lines.length) {
        logical.setLength(logical.length() - 1);
        logical.append(lines[++i].stripLeading());
      }
      String trimmed = logical.toString().strip();
      if (trimmed.isEmpty() || trimmed.startsWith("#") || trimmed.startsWith("!")) {
        continue;
      }
      Optional<String[]> notKeyValue = notKeyEqualsValue(logical.toString());
      if (notKeyValue.isPresent()) {
        problems.add(
            problem(
                shownAs,
                start,
                null,
                "is not a key=value line: " + notKeyValue.get()[0],
                "write "
                    + notKeyValue.get()[1]
                    + ", or start the line with # to make it a comment"));
        continue;
      }
      Properties one = new Properties();
      try {
        one.load(new StringReader(logical.toString()));
      } catch (IOException | IllegalArgumentException e) {
        boolean escape = String.valueOf(e.getMessage()).contains("\\uxxxx");
        problems.add(
            problem(
                shownAs,
                start,
                null,
                "cannot be read: "
                    + (escape
                        ? "\\u starts a character code in a .properties file, and it is not"
                            + " followed by four hexadecimal digits"
                        : e.getMessage()),
                escape
                    ? "write a backslash as \\\\ (C:\\\\certs\\\\ca.pem), a character as \\u and"
                        + " its four hexadecimal digits (\\u00e9 for \u00e9), or the character"
                        + " itself (the file is UTF-8)"
                    : "write key=value"));
        continue;
      }
      for (String key : one.stringPropertyNames()) {
        String value = one.getProperty(key).strip();
        check(key, value, shownAs, start, seen, problems);
        if (LOCATIONS.contains(key) && variables(value).isEmpty() && !value.contains("$${")) {
          // written absolute, so that every reader of the value (KafkaIO's shown settings too)
          // has the path the check looked at
          value = inFolder(value, folder);
        }
        settings.add(new Setting(key, value, shownAs, start, folder));
      }
    }
    return settings;
  }

  /**
   * Why a logical line (comments and blank lines already skipped) is not {@code key=value}: its key
   * (up to the first unescaped {@code =}, {@code :} or blank, as {@link Properties} reads it) must
   * be followed, after optional blanks, by {@code =}. {@link Properties} would also take a blank or
   * {@code :} as the separator, so {@code linger.ms 5} or a line of words would pass unnoticed.
   * Returns the reason and the line as it would be {@code key=value}, for the fix; the value is
   * shown there only for a key Kafka defines that is no secret.
   */
  private static Optional<String[]> notKeyEqualsValue(String line) {
    int i = 0;
    while (i < line.length() && isBlank(line.charAt(i))) {
      i++;
    }
    int keyStart = i;
    while (i < line.length()) {
      char c = line.charAt(i);
      if (c == '\\' && i + 1 < line.length()) {
        i += 2;
        continue;
      }
      if (c == '=' || c == ':' || isBlank(c)) {
        break;
      }
      i++;
    }
    String key = line.substring(keyStart, i);
    while (i < line.length() && isBlank(line.charAt(i))) {
      i++;
    }
    if (i < line.length() && line.charAt(i) == '=') {
      return key.isEmpty()
          ? Optional.of(new String[] {"it has no key before '='", "key=value (e.g. linger.ms=5)"})
          : Optional.empty();
    }
    boolean colon = i < line.length() && line.charAt(i) == ':';
    String rest = line.substring(colon ? i + 1 : i).strip();
    // the fix names this line's key; its value only when Kafka defines the key as no secret
    String fix =
        key
            + "="
            + (KNOWN.containsKey(key) && !isSecret(key) && !rest.isEmpty() ? rest : "<value>");
    return Optional.of(
        new String[] {
          colon
              ? "'" + key + "' is followed by ':', not '='"
              : "'" + key + "' is not followed by '='",
          fix
        });
  }

  private static boolean isBlank(char c) {
    return c == ' ' || c == '\t' || c == '\f';
  }

  private static boolean continues(CharSequence line) {
    int backslashes = 0;
    for (int i = line.length() - 1; i >= 0 && line.charAt(i) == '\\'; i--) {
      backslashes++;
    }
    return backslashes % 2 == 1;
  }

  private static void check(
      String key,
      String value,
      String file,
      int line,
      Map<String, Integer> seen,
      List<Problem> problems) {
    Integer before = seen.put(key, line);
    if (before != null) {
      problems.add(
          problem(
              file,
              line,
              key,
              "is set twice (also on line " + before + ")",
              "keep one of the two lines"));
    }
    if (RESERVED.contains(key)) {
      problems.add(
          problem(
              file,
              line,
              key,
              "is set by Streamform (records are JSON bytes)",
              "remove this line"));
    }
    if (value.isEmpty() && !takesEmpty(key)) {
      problems.add(
          problem(
              file, line, key, "has no value", "write " + key + "=<value>, or remove the line"));
      return;
    }
    Optional<String> breaksContract = breaksReadingContract(key, value);
    if (breaksContract.isPresent()) {
      problems.add(
          problem(
              file,
              line,
              key,
              breaksContract.get(),
              "remove the line: streamform reads a source from its earliest offsets with no"
                  + " consumer group, and a Flink job restored with --from-savepoint continues"
                  + " where it stopped (docs/guides/kafka.md)"));
      return;
    }
    Optional<String> malformed = malformedReference(value);
    if (malformed.isPresent()) {
      problems.add(
          problem(
              file,
              line,
              key,
              "has a malformed reference " + malformed.get(),
              "name an environment variable as ${NAME} (letters, digits, _) or a file as"
                  + " ${file:/ABSOLUTE/PATH:KEY}, or write $${ for a literal ${"));
      return;
    }
    ConfigDef.ConfigKey known = KNOWN.get(key);
    if (known == null && !RESERVED.contains(key)) {
      problems.add(
          problem(
              file,
              line,
              key,
              "is not a setting of Kafka's consumer, producer or admin client (Kafka would ignore"
                  + " it and use its default)",
              Names.closest(key, KNOWN.keySet()).map(k -> "did you mean '" + k + "'? ").orElse("")
                  + "write a key Kafka's clients know (e.g. security.protocol, sasl.mechanism,"
                  + " ssl.truststore.location), or remove the line"));
    } else if (known != null && variables(value).isEmpty() && !value.contains("$${")) {
      Optional<String> invalid = invalidValue(known, value);
      if (invalid.isPresent() && known.type == ConfigDef.Type.CLASS && !loadable(value)) {
        problems.add(
            problem(
                file,
                line,
                key,
                "names class "
                    + value
                    + ", which is not on streamform's class path (Kafka loads it in every client"
                    + " streamform and the job create)",
                "add the jar that holds it as a dependency in cli/pom.xml (streamform's class"
                    + " path and the job jar are built from it), or "
                    + (key.equals("sasl.login.callback.handler.class")
                        ? "use Kafka's own OAuth login, "
                            + KAFKA_OAUTH_LOGIN
                            + " with sasl.oauthbearer.token.endpoint.url, or "
                        : "")
                    + "remove the line"));
      } else if (invalid.isPresent()) {
        problems.add(
            problem(
                file,
                line,
                key,
                "has a value Kafka cannot use: " + invalid.get(),
                "write a value Kafka's " + key + " accepts" + validValues(known)));
      }
    }
    Optional<String> literal = isSecret(key) ? literalSecret(key, value) : Optional.empty();
    if (literal.isPresent()) {
      String example =
          key.equals("sasl.jaas.config")
              ? literal.get() + "=\"${" + variableFor(literal.get()) + "}\""
              : key + "=${" + variableFor(key) + "}";
      problems.add(
          problem(
              file,
              line,
              key,
              "holds a secret written into the file"
                  + (key.equals("sasl.jaas.config") ? " (option " + literal.get() + ")" : "")
                  + " (files are shared, and a literal would travel in the job and its savepoints)",
              "write the secret as a reference: an environment variable, e.g. "
                  + example
                  + ", exported where streamform and the job run, or a file only they can read,"
                  + " e.g. ${file:/etc/streamform/kafka-secrets.properties:password}"));
    }
  }

  /**
   * Why a consumer setting would break how a source reads (docs/decisions/0142, 0231): it reads
   * from the earliest offsets with empty state and commits nothing, so that a run processes every
   * event and says truthfully where it starts. A group with auto-commit committed offsets before
   * the outputs were published, and a later run resumed there with empty state (the events between
   * were lost); {@code auto.offset.reset=latest} read nothing the topic held. A reference is
   * refused too: its value is not known here. Empty for any other key, and for {@code
   * enable.auto.commit=false} and {@code auto.offset.reset=earliest}.
   */
  private static Optional<String> breaksReadingContract(String key, String value) {
    switch (key) {
      case "group.id":
      case "group.instance.id":
        return Optional.of(
            "joins a consumer group, and a streamform source joins none (its offsets live in"
                + " Flink's checkpoints and savepoints, not in a group)");
      case "enable.auto.commit":
        return value.equalsIgnoreCase("false")
            ? Optional.empty()
            : Optional.of(
                "commits the consumer's offsets as it reads"
                    + (value.equalsIgnoreCase("true") ? "" : " (" + value + " may be true)")
                    + ", before the outputs are published: a later run would resume there with"
                    + " empty state, and the events between would be lost");
      case "auto.offset.reset":
        return value.equalsIgnoreCase("earliest")
            ? Optional.empty()
            : Optional.of(
                "starts a source at "
                    + value
                    + ", and a run reads it from its earliest offsets (streamform sets"
                    + " auto.offset.reset=earliest): what the topic holds would not be read");
      default:
        return Optional.empty();
    }
  }

  /**
   * Why Kafka's own {@link ConfigDef} refuses {@code value} for {@code key}: its type ({@code
   * request.timeout.ms=abc}) or its validator ({@code security.protocol=SASL_SSLX}); empty when it
   * takes it. A PASSWORD-typed value is never shown (it is a reference anyway).
   */
  private static Optional<String> invalidValue(ConfigDef.ConfigKey key, String value) {
    try {
      Object parsed = ConfigDef.parseType(key.name, value, key.type);
      if (key.validator != null) {
        key.validator.ensureValid(key.name, parsed);
      }
      return Optional.empty();
    } catch (ConfigException e) {
      return Optional.of(
          key.type == ConfigDef.Type.PASSWORD
              ? "not a " + key.type.name().toLowerCase(Locale.ROOT)
              : e.getMessage());
    }
  }

  /** The OAUTHBEARER login handler Kafka's clients ship, for a plug-in's that is missing. */
  private static final String KAFKA_OAUTH_LOGIN =
      "org.apache.kafka.common.security.oauthbearer.OAuthBearerLoginCallbackHandler";

  /** True when class {@code name} loads here, as Kafka's {@code ConfigDef} would load it. */
  private static boolean loadable(String name) {
    ClassLoader loader = Thread.currentThread().getContextClassLoader();
    try {
      Class.forName(
          name.strip(),
          false,
          loader != null ? loader : KafkaClientProperties.class.getClassLoader());
      return true;
    } catch (ClassNotFoundException | LinkageError e) {
      return false;
    }
  }

  private static String validValues(ConfigDef.ConfigKey key) {
    String type = key.type.name().toLowerCase(Locale.ROOT);
    if (key.validator != null && !key.validator.toString().isBlank()) {
      return " (" + type + ": " + key.validator + ")";
    }
    return " (" + type + ")";
  }

  /**
   * The environment variable a fix suggests for a secret under {@code name} (a key or a JAAS
   * option): {@code ssl.key.password} → {@code KAFKA_SSL_KEY_PASSWORD}, {@code clientSecret} →
   * {@code KAFKA_CLIENT_SECRET}.
   */
  static String variableFor(String name) {
    String snake =
        name.replaceAll("([a-z0-9])([A-Z])", "$1_$2")
            .replaceAll("[^A-Za-z0-9]+", "_")
            .replaceAll("^_+|_+$", "")
            .toUpperCase(Locale.ROOT);
    return snake.startsWith("KAFKA_") ? snake : "KAFKA_" + snake;
  }

  /**
   * Where a secret key's value carries its secret literally instead of by reference: for {@code
   * sasl.jaas.config} the first secret option's name, else the key; empty when it does not.
   */
  private static Optional<String> literalSecret(String key, String value) {
    if (key.equals("sasl.jaas.config")) {
      Matcher m = JAAS_OPTION.matcher(value);
      while (m.find()) {
        String option = m.group(1);
        String v =
            m.group(2).startsWith("\"") || m.group(2).startsWith("'")
                ? m.group(2).substring(1, m.group(2).length() - 1)
                : m.group(2);
        if (SECRET_NAME.matcher(option).matches()
            && !NOT_A_SECRET_OPTION.matcher(option).matches()
            && !onlyReferences(v)) {
          return Optional.of(option);
        }
      }
      return Optional.empty();
    }
    return onlyReferences(value) ? Optional.empty() : Optional.of(key);
  }

  /** True when {@code value} is made of references (and blanks) only, at least one. */
  private static boolean onlyReferences(String value) {
    if (variables(value).isEmpty()) {
      return false;
    }
    StringBuilder rest = new StringBuilder();
    int i = 0;
    while (i < value.length()) {
      if (value.startsWith("$${", i)) {
        rest.append("${");
        i += 3;
      } else if (value.startsWith("${", i)) {
        i = value.indexOf('}', i) + 1;
      } else {
        rest.append(value.charAt(i++));
      }
    }
    return rest.toString().isBlank();
  }

  /**
   * True for a key of Kafka's own whose definition takes an empty value and that holds no secret:
   * {@code ssl.endpoint.identification.algorithm=} turns hostname checking off, and leaving the
   * line out is not the same (Kafka's default comes back).
   */
  private static boolean takesEmpty(String key) {
    ConfigDef.ConfigKey known = KNOWN.get(key);
    return known != null
        && known.type != ConfigDef.Type.PASSWORD
        && invalidValue(known, "").isEmpty();
  }

  private static Problem problem(String file, int line, String key, String message, String fix) {
    return Problem.of(
        file, line, Optional.empty(), Optional.ofNullable(key), message, Optional.of(fix));
  }

  /**
   * True for a key whose value is a secret: every property a Kafka consumer, producer or admin
   * client types as a password ({@code ConfigDef.Type.PASSWORD}: {@code sasl.jaas.config}, {@code
   * ssl.key.password}, {@code ssl.keystore.key}, ...), and by name any {@code *password}, {@code
   * *secret*}, {@code *token*} or {@code *credential*} key (a login handler's own options, which
   * Kafka does not define). Such a value is never shown and must be a reference.
   */
  public static boolean isSecret(String key) {
    String k = key.toLowerCase(Locale.ROOT);
    if (KNOWN.containsKey(key)) {
      // Kafka's own key: its type says ({@code sasl.oauthbearer.token.endpoint.url} is a URL)
      return PASSWORD_TYPED.contains(key);
    }
    return k.endsWith("password")
        || k.contains("secret")
        || k.contains("token")
        || k.contains("credential");
  }

  private static final Set<String> PASSWORD_TYPED =
      passwordTyped(
          ConsumerConfig.configDef(), ProducerConfig.configDef(), AdminClientConfig.configDef());

  /** Every key a Kafka consumer, producer or admin client defines, with its definition. */
  private static final Map<String, ConfigDef.ConfigKey> KNOWN =
      known(ConsumerConfig.configDef(), ProducerConfig.configDef(), AdminClientConfig.configDef());

  private static Map<String, ConfigDef.ConfigKey> known(ConfigDef... defs) {
    Map<String, ConfigDef.ConfigKey> keys = new java.util.TreeMap<>();
    for (ConfigDef def : defs) {
      def.configKeys().forEach(keys::putIfAbsent);
    }
    return java.util.Collections.unmodifiableMap(keys);
  }

  private static Set<String> passwordTyped(ConfigDef... defs) {
    Set<String> keys = new java.util.TreeSet<>();
    for (ConfigDef def : defs) {
      def.configKeys()
          .forEach(
              (name, k) -> {
                if (k.type == ConfigDef.Type.PASSWORD) {
                  keys.add(name);
                }
              });
    }
    return Set.copyOf(keys);
  }

  /** The keys whose value names a file the client reads when it is created. */
  public static final List<String> LOCATIONS =
      List.of("ssl.truststore.location", "ssl.keystore.location");

  /**
   * A problem (file, line, key, fix) for every {@link #LOCATIONS} setting whose file is not a
   * readable file here; a value with references is resolved by {@code environment}, or skipped when
   * {@code environment} is null (as {@code check} does: the variables belong to the machine that
   * runs).
   *
   * @throws UnsetVariableException as {@link #resolve}
   */
  public List<Problem> locationProblems(Function<String, String> environment) {
    List<Problem> problems = new ArrayList<>();
    for (Setting s : settings) {
      if (!LOCATIONS.contains(s.key()) || environment == null && s.hasReference()) {
        continue;
      }
      String location = resolve(s, environment == null ? n -> null : environment);
      Path path;
      try {
        path = Path.of(location);
      } catch (java.nio.file.InvalidPathException e) {
        path = null;
      }
      String store = s.key().startsWith("ssl.truststore") ? "truststore" : "keystore";
      String why =
          path == null || !Files.exists(path)
              ? "which does not exist"
              : !Files.isRegularFile(path)
                  ? "which is not a file"
                  : !Files.isReadable(path) ? "which cannot be read" : null;
      if (why != null) {
        problems.add(
            problem(
                s.file(),
                s.line(),
                s.key(),
                "names " + location + ", " + why,
                "give the path of the "
                    + store
                    + " file ("
                    + (store.equals("truststore")
                        ? "the CA certificates that signed the brokers' certificates"
                        : "this client's certificate and key")
                    + ", as ssl."
                    + store
                    + ".type says: PEM, JKS or PKCS12), readable where streamform runs and on the"
                    + " job's workers"
                    + (store.equals("truststore")
                        ? ", or remove the line when a public CA signed the brokers' certificates"
                        : "")));
      }
    }
    return problems;
  }

  /** The settings in file order. */
  public List<Setting> settings() {
    return settings;
  }

  public boolean isEmpty() {
    return settings.isEmpty();
  }

  /** These settings with {@code later}'s on top: a key {@code later} sets replaces this one's. */
  public KafkaClientProperties overriddenBy(KafkaClientProperties later) {
    Map<String, Setting> merged = new LinkedHashMap<>();
    settings.forEach(s -> merged.put(s.key(), s));
    later.settings.forEach(
        s -> {
          merged.remove(s.key());
          merged.put(s.key(), s);
        });
    return new KafkaClientProperties(new ArrayList<>(merged.values()));
  }

  /** The setting of {@code key}, if any. */
  public Optional<Setting> get(String key) {
    return settings.stream().filter(s -> s.key().equals(key)).findFirst();
  }

  /** These settings without {@code key}. */
  public KafkaClientProperties without(String key) {
    return new KafkaClientProperties(settings.stream().filter(s -> !s.key().equals(key)).toList());
  }

  /**
   * Every setting with its references replaced by {@code environment}'s values ({@code
   * System::getenv} in production), in file order.
   *
   * @throws UnsetVariableException naming the file, line, key and variable of the first reference
   *     that {@code environment} does not set
   */
  public static Map<String, String> resolve(
      List<Setting> settings, Function<String, String> environment) {
    Map<String, String> resolved = new LinkedHashMap<>();
    for (Setting s : settings) {
      resolved.put(s.key(), resolve(s, environment));
    }
    return resolved;
  }

  /** {@link #resolve(List, Function)} of all these settings. */
  public Map<String, String> resolve(Function<String, String> environment) {
    return resolve(settings, environment);
  }

  private static String resolve(Setting s, Function<String, String> environment) {
    String resolved = resolveReferences(s, environment);
    return LOCATIONS.contains(s.key()) ? inFolder(resolved, s.folder()) : resolved;
  }

  /**
   * {@code location} read against {@code folder} (the folder of the properties file that names it)
   * when it is a relative path: Kafka would read it against the working folder of whichever process
   * creates the client (ADR 0124). An absolute path, an empty value or one that is no path here
   * stays as it is.
   */
  private static String inFolder(String location, String folder) {
    if (folder == null || location.isEmpty()) {
      return location;
    }
    try {
      Path path = Path.of(location);
      return path.isAbsolute() ? location : Path.of(folder).resolve(path).normalize().toString();
    } catch (java.nio.file.InvalidPathException e) {
      return location;
    }
  }

  private static String resolveReferences(Setting s, Function<String, String> environment) {
    String v = s.value();
    boolean jaas = s.key().equals(JAAS_CONFIG);
    char quote = 0; // in sasl.jaas.config: the quote the text at i is inside, or 0
    StringBuilder out = new StringBuilder();
    int i = 0;
    while (i < v.length()) {
      if (v.startsWith("$${", i)) {
        out.append("${");
        i += 3;
      } else if (v.startsWith("${", i)) {
        int end = v.indexOf('}', i);
        String name = v.substring(i + 2, end);
        Matcher file = FILE_REFERENCE.matcher(name);
        String value =
            file.matches()
                ? fromFile(s, name, file.group(1), file.group(2))
                : environment.apply(name);
        if (value == null) {
          throw unset(s, name);
        }
        if (!jaas) {
          out.append(value);
        } else if (quote != 0) {
          out.append(jaasEscaped(value, quote));
        } else if (wholeJaasValue(out, v, end + 1)) {
          out.append('"').append(jaasEscaped(value, '"')).append('"');
        } else {
          out.append(value);
        }
        i = end + 1;
      } else {
        char c = v.charAt(i++);
        out.append(c);
        if (!jaas) {
          continue;
        }
        if (quote == 0 && (c == '"' || c == '\'')) {
          quote = c;
        } else if (quote != 0 && c == '\\' && i < v.length()) {
          out.append(v.charAt(i++));
        } else if (quote != 0 && c == quote) {
          quote = 0;
        }
      }
    }
    return out.toString();
  }

  private static final String JAAS_CONFIG = "sasl.jaas.config";

  /**
   * {@code value} as the inside of a JAAS option quoted with {@code quote}: Kafka's JaasConfig
   * reads it with {@link java.io.StreamTokenizer}, whose quoted strings end at the quote or a line
   * end and take {@code \\} escapes, so a password with {@code "} or {@code \\} reaches the login
   * module as it is, and none of it is read as another option.
   */
  static String jaasEscaped(String value, char quote) {
    StringBuilder out = new StringBuilder(value.length() + 8);
    for (int i = 0; i < value.length(); i++) {
      char c = value.charAt(i);
      if (c == '\\' || c == quote) {
        out.append('\\').append(c);
      } else if (c == '\n') {
        out.append("\\n");
      } else if (c == '\r') {
        out.append("\\r");
      } else {
        out.append(c);
      }
    }
    return out.toString();
  }

  /**
   * True when a reference ending before {@code after} in a JAAS text is a whole unquoted option
   * value ({@code password=${P};}): it is then resolved into a quoted one.
   */
  private static boolean wholeJaasValue(CharSequence before, String text, int after) {
    int b = before.length() - 1;
    while (b >= 0 && Character.isWhitespace(before.charAt(b))) {
      b--;
    }
    if (b < 0 || before.charAt(b) != '=') {
      return false;
    }
    return after >= text.length()
        || Character.isWhitespace(text.charAt(after))
        || text.charAt(after) == ';';
  }

  private static UnsetVariableException unset(Setting s, String name) {
    return new UnsetVariableException(
        s.origin()
            + ": "
            + s.key()
            + " names ${"
            + name
            + "}, which is not set in the environment — export "
            + name
            + " where streamform runs (and, for a job on a cluster, in the environment of its"
            + " workers)");
  }

  /**
   * The values {@code s}'s references resolve to here (those that resolve; none is thrown for one
   * that does not): what a message must never show.
   */
  public static List<String> referencedValues(Setting s, Function<String, String> environment) {
    List<String> values = new ArrayList<>();
    for (String name : variables(s.value())) {
      try {
        Matcher file = FILE_REFERENCE.matcher(name);
        String value =
            file.matches()
                ? fromFile(s, name, file.group(1), file.group(2))
                : environment.apply(name);
        if (value != null && !value.isEmpty()) {
          values.add(value);
        }
      } catch (UnsetVariableException e) {
        // not resolved, so in no client's settings
      }
    }
    return values;
  }

  /** {@code key} of the {@code .properties} file at {@code path}, by Kafka's FileConfigProvider. */
  private static String fromFile(Setting s, String reference, String path, String key) {
    String problem;
    try (FileConfigProvider provider = new FileConfigProvider()) {
      provider.configure(Map.of());
      String value = provider.get(path, Set.of(key)).data().get(key);
      if (value != null) {
        return value;
      }
      problem = "which has no key " + key;
    } catch (ConfigException e) {
      problem = "which cannot be read (" + e.getMessage() + ")";
    }
    throw new UnsetVariableException(
        s.origin()
            + ": "
            + s.key()
            + " names ${"
            + reference
            + "}, "
            + problem
            + " — the file must be readable where streamform runs (and, for a job on a"
            + " cluster, on its workers)");
  }

  /** The references {@code value} makes (variable names, {@code file:PATH:KEY}), in order. */
  static List<String> variables(String value) {
    List<String> names = new ArrayList<>();
    int i = 0;
    while (i < value.length()) {
      if (value.startsWith("$${", i)) {
        i += 3;
      } else if (value.startsWith("${", i)) {
        int end = value.indexOf('}', i);
        if (end < 0) {
          break;
        }
        names.add(value.substring(i + 2, end));
        i = end + 1;
      } else {
        i++;
      }
    }
    return names;
  }

  /** The first {@code ${...}} in {@code value} that is not a variable name, if any. */
  private static Optional<String> malformedReference(String value) {
    int i = 0;
    while (i < value.length()) {
      if (value.startsWith("$${", i)) {
        i += 3;
      } else if (value.startsWith("${", i)) {
        int end = value.indexOf('}', i);
        if (end < 0) {
          return Optional.of(
              "'" + value.substring(i, Math.min(value.length(), i + 20)) + "' (no closing })");
        }
        String name = value.substring(i + 2, end);
        if (!NAME.matcher(name).matches() && !FILE_REFERENCE.matcher(name).matches()) {
          return Optional.of("'${" + name + "}'");
        }
        i = end + 1;
      } else {
        i++;
      }
    }
    return Optional.empty();
  }

  /** The keys and, for settings that are not {@linkplain Setting#hidden hidden}, the values. */
  @Override
  public String toString() {
    StringBuilder s = new StringBuilder("{");
    for (Setting setting : settings) {
      if (s.length() > 1) {
        s.append(", ");
      }
      s.append(setting.key()).append('=').append(setting.hidden() ? "<hidden>" : setting.value());
    }
    return s.append('}').toString();
  }
}
