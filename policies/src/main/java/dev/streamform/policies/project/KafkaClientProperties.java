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

/**
 * Kafka client settings from a {@code .properties} file ({@code kafka.properties:} of a kafka
 * source in {@code sources.yml}, {@code kafka.properties=} of a runner profile, or {@code
 * --kafka-properties}): any consumer, producer or admin client property, e.g. {@code
 * security.protocol}, {@code sasl.mechanism}, {@code sasl.jaas.config}, {@code ssl.truststore.*}.
 *
 * <p>A value may name environment variables, {@code ${NAME}}, so that secrets stay out of files
 * ({@code $${} is a literal {@code ${}). A reference is kept as written until {@link #resolve}
 * replaces it, which happens where a Kafka client is created: a job on a cluster resolves it on the
 * worker, so the job it is submitted as holds no secret. Every setting remembers its file and line,
 * so an unset variable is reported as {@code kafka.properties:4: sasl.jaas.config names
 * ${KAFKA_PASSWORD}, which is not set}.
 *
 * <p>Guarantees: {@link #read} returns only files without problems: every line is {@code
 * key=value} with a value, no key twice, well-formed references, none of the (de)serializer keys
 * Streamform sets itself, and — for a file that belongs to a project or a profile — no secret
 * ({@link #isSecret}) written out literally. Immutable and serializable.
 */
public final class KafkaClientProperties implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Properties Streamform sets itself for every client it creates. */
  public static final Set<String> RESERVED =
      Set.of("key.serializer", "value.serializer", "key.deserializer", "value.deserializer");

  private static final Pattern NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]*");
  private static final Pattern JAAS_PASSWORD =
      Pattern.compile("(?i)password\\s*=\\s*(\"[^\"]*\"|[^\\s;]+)");

  /**
   * One {@code key=value} line.
   *
   * @param value as written: references not yet resolved
   * @param file the file as it was named (relative to the project for a source's file)
   * @param line 1-based line where the setting starts
   */
  public record Setting(String key, String value, String file, int line) implements Serializable {
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

  /** No settings: a plaintext connection with Kafka's defaults. */
  public static KafkaClientProperties none() {
    return new KafkaClientProperties(List.of());
  }

  /**
   * Reads and checks {@code file}, named {@code shownAs} in problems. With {@code
   * secretsMustBeReferences} (a file of a project or profile, which is committed), a secret written
   * out literally is a problem: it must come from the environment.
   *
   * @throws InvalidProjectException listing every problem, each with file, line and fix
   */
  public static KafkaClientProperties read(Path file, String shownAs, boolean secretsMustBeReferences)
      throws InvalidProjectException {
    List<Problem> problems = new ArrayList<>();
    List<Setting> settings = read(file, shownAs, secretsMustBeReferences, problems);
    if (!problems.isEmpty()) {
      throw new InvalidProjectException(problems);
    }
    return new KafkaClientProperties(settings);
  }

  /** As {@link #read(Path, String, boolean)}, adding problems to {@code problems}. */
  static List<Setting> read(
      Path file, String shownAs, boolean secretsMustBeReferences, List<Problem> problems) {
    String text;
    try {
      text = Files.readString(file, StandardCharsets.UTF_8);
    } catch (IOException e) {
      problems.add(Problem.ofFile(shownAs, "cannot be read: " + e.getMessage(),
          "give a readable .properties file of Kafka client settings"));
      return List.of();
    }
    List<Setting> settings = new ArrayList<>();
    Map<String, Integer> seen = new LinkedHashMap<>();
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
      Properties one = new Properties();
      try {
        one.load(new StringReader(logical.toString()));
      } catch (IOException | IllegalArgumentException e) {
        problems.add(problem(shownAs, start, null, "cannot be read: " + e.getMessage(),
            "write key=value"));
        continue;
      }
      for (String key : one.stringPropertyNames()) {
        String value = one.getProperty(key).strip();
        check(key, value, shownAs, start, secretsMustBeReferences, seen, problems);
        settings.add(new Setting(key, value, shownAs, start));
      }
    }
    return settings;
  }

  private static boolean continues(CharSequence line) {
    int backslashes = 0;
    for (int i = line.length() - 1; i >= 0 && line.charAt(i) == '\\'; i--) {
      backslashes++;
    }
    return backslashes % 2 == 1;
  }

  private static void check(String key, String value, String file, int line,
      boolean secretsMustBeReferences, Map<String, Integer> seen, List<Problem> problems) {
    Integer before = seen.put(key, line);
    if (before != null) {
      problems.add(problem(file, line, key, "is set twice (also on line " + before + ")",
          "keep one of the two lines"));
    }
    if (RESERVED.contains(key)) {
      problems.add(problem(file, line, key, "is set by Streamform (records are JSON bytes)",
          "remove this line"));
    }
    if (value.isEmpty()) {
      problems.add(problem(file, line, key, "has no value", "write " + key + "=<value>, or remove the line"));
      return;
    }
    Optional<String> malformed = malformedReference(value);
    if (malformed.isPresent()) {
      problems.add(problem(file, line, key, "has a malformed reference " + malformed.get(),
          "name an environment variable as ${NAME} (letters, digits, _), or write $${ for a literal ${"));
      return;
    }
    if (secretsMustBeReferences && isSecret(key) && literalSecret(key, value)) {
      problems.add(problem(file, line, key,
          "holds a secret written into the file (project and profile files are shared)",
          "write the secret as an environment variable reference, e.g. "
              + (key.equals("sasl.jaas.config") ? "password=\"${KAFKA_PASSWORD}\"" : key + "=${KAFKA_SSL_PASSWORD}")
              + ", and export it where streamform and the job run"));
    }
  }

  /** True when a secret key's value carries its secret literally instead of by reference. */
  private static boolean literalSecret(String key, String value) {
    if (key.equals("sasl.jaas.config")) {
      Matcher m = JAAS_PASSWORD.matcher(value);
      while (m.find()) {
        if (variables(m.group(1)).isEmpty()) {
          return true;
        }
      }
      return false;
    }
    return variables(value).isEmpty();
  }

  private static Problem problem(String file, int line, String key, String message, String fix) {
    return Problem.of(file, line, Optional.empty(), Optional.ofNullable(key), message, Optional.of(fix));
  }

  /**
   * True for a key whose value is a secret: {@code sasl.jaas.config}, any {@code *.password}, and
   * the key material and credentials Kafka itself treats as passwords. Such a value is never shown.
   */
  public static boolean isSecret(String key) {
    String k = key.toLowerCase(Locale.ROOT);
    return k.equals("sasl.jaas.config")
        || k.endsWith("password")
        || k.equals("ssl.keystore.key")
        || k.contains("secret")
        || k.contains("token")
        || k.contains("credential");
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
    later.settings.forEach(s -> {
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
    String v = s.value();
    StringBuilder out = new StringBuilder();
    int i = 0;
    while (i < v.length()) {
      if (v.startsWith("$${", i)) {
        out.append("${");
        i += 3;
      } else if (v.startsWith("${", i)) {
        int end = v.indexOf('}', i);
        String name = v.substring(i + 2, end);
        String value = environment.apply(name);
        if (value == null) {
          throw new UnsetVariableException(s.origin() + ": " + s.key() + " names ${" + name
              + "}, which is not set in the environment — export " + name
              + " where streamform runs (and, for a job on a cluster, in the environment of its"
              + " workers)");
        }
        out.append(value);
        i = end + 1;
      } else {
        out.append(v.charAt(i++));
      }
    }
    return out.toString();
  }

  /** The environment variables {@code value} names, in order. */
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
          return Optional.of("'" + value.substring(i, Math.min(value.length(), i + 20)) + "' (no closing })");
        }
        String name = value.substring(i + 2, end);
        if (!NAME.matcher(name).matches()) {
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
