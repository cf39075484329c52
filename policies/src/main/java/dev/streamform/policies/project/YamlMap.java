package dev.streamform.policies.project;

import dev.streamform.core.time.Durations;
import java.io.StringReader;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.error.Mark;
import org.yaml.snakeyaml.error.MarkedYAMLException;
import org.yaml.snakeyaml.error.YAMLException;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;
import org.yaml.snakeyaml.nodes.Tag;

/**
 * One YAML mapping of a declaration file, read through SnakeYAML's node API so that every value
 * keeps its line. Reading a key that is missing, of the wrong shape or with a bad value records a
 * {@link Problem} and returns empty, so a whole file is checked in one pass.
 */
final class YamlMap {
  private final String file;
  private final Optional<String> subject;

  /** Prepended to the keys problems name: {@code window.} for the keys of {@code window: {...}}. */
  private final String keyPrefix;

  private final Node node;
  private final Map<String, NodeTuple> entries;
  private final List<Problem> problems;

  private YamlMap(String file, Optional<String> subject, MappingNode node, List<Problem> problems) {
    this(file, subject, "", node, problems);
  }

  private YamlMap(
      String file,
      Optional<String> subject,
      String keyPrefix,
      MappingNode node,
      List<Problem> problems) {
    this.file = file;
    this.subject = subject;
    this.keyPrefix = keyPrefix;
    this.node = node;
    this.problems = problems;
    this.entries = new LinkedHashMap<>();
    for (NodeTuple entry : node.getValue()) {
      Node keyNode = entry.getKeyNode();
      if (!(keyNode instanceof ScalarNode)) {
        report(
            keyNode,
            Optional.empty(),
            "a key must be a plain name, not " + describe(keyNode),
            "write name: value");
        continue;
      }
      String key = ((ScalarNode) keyNode).getValue();
      if (Tag.MERGE.equals(keyNode.getTag())) {
        report(
            keyNode,
            Optional.of(key),
            "a YAML merge key (<<) is not taken",
            "write the keys out in full");
        continue;
      }
      if (entries.containsKey(key)) {
        report(
            keyNode,
            Optional.of(key),
            "is given twice (first on line " + line(entries.get(key).getKeyNode()) + ")",
            "keep one of them");
        continue;
      }
      entries.put(key, entry);
    }
  }

  /**
   * The largest declaration or fixture file read, in characters (Unicode code points): 16 MiB,
   * about 100,000 fixture events of one line each. SnakeYAML's own default (3 MiB) refused a
   * 20,000-event fixture; past this size a file is refused as too large, before it is parsed.
   */
  static final int MAX_CHARACTERS = 16 * 1024 * 1024;

  /**
   * Parses {@code text} as one YAML document whose top level is a mapping. A file over {@link
   * #MAX_CHARACTERS}, a malformed file, an empty one or one whose top level is not a mapping
   * records a problem and returns empty.
   */
  static Optional<YamlMap> parseFile(
      String file, String text, String example, List<Problem> problems) {
    long size = text.codePointCount(0, text.length());
    if (size > MAX_CHARACTERS) {
      problems.add(
          Problem.ofFile(
              file,
              String.format(
                  java.util.Locale.ROOT,
                  "is too large: %,d characters, more than the limit of %,d (16 MiB)",
                  size,
                  MAX_CHARACTERS),
              "split it into several files (a fixture into several fixtures of the same model)"));
      return Optional.empty();
    }
    Node root;
    try {
      LoaderOptions options = new LoaderOptions();
      options.setCodePointLimit(MAX_CHARACTERS);
      root = new Yaml(options).compose(new StringReader(text));
    } catch (MarkedYAMLException e) {
      Mark mark = e.getProblemMark() != null ? e.getProblemMark() : e.getContextMark();
      String what = e.getProblem() != null ? e.getProblem() : e.getMessage();
      if (e.getContext() != null) {
        what = e.getContext() + ": " + what;
      }
      problems.add(
          Problem.of(
              file,
              mark == null ? 0 : mark.getLine() + 1,
              Optional.empty(),
              Optional.empty(),
              "malformed YAML: " + oneLine(what),
              Optional.of(
                  what.contains("expected a single document")
                      ? "a file holds one YAML document: remove the --- line and what follows it,"
                          + " or merge it into the first"
                      : "check the indentation and quoting on this line and the one before")));
      return Optional.empty();
    } catch (YAMLException e) {
      String message = String.valueOf(e.getMessage());
      if (message.startsWith("Number of aliases for non-scalar nodes exceeds")) {
        // SnakeYAML's guard against a "billion laughs", in words a reader can act on
        problems.add(
            Problem.ofFile(
                file,
                "uses more than "
                    + new LoaderOptions().getMaxAliasesForCollections()
                    + " aliases (*name) of lists or maps, the most a project file may (a guard"
                    + " against a file that expands to billions of values)",
                "write the values out, or repeat them with fewer aliases"));
        return Optional.empty();
      }
      problems.add(
          Problem.ofFile(
              file,
              "malformed YAML: " + oneLine(message),
              "check the file's indentation and quoting"));
      return Optional.empty();
    }
    if (root == null || isNull(root)) {
      problems.add(Problem.ofFile(file, "is empty", "start it with " + example));
      return Optional.empty();
    }
    if (!(root instanceof MappingNode)) {
      problems.add(
          Problem.of(
              file,
              line(root),
              Optional.empty(),
              Optional.empty(),
              "the top level is " + describe(root) + ", not a map",
              Optional.of("start it with " + example)));
      return Optional.empty();
    }
    return Optional.of(new YamlMap(file, Optional.empty(), (MappingNode) root, problems));
  }

  /** The file this mapping is in, as problems name it. */
  String file() {
    return file;
  }

  /** The 1-based line where this mapping starts. */
  int line() {
    return line(node);
  }

  /** The 1-based line of {@code key}, or of this mapping when the key is absent. */
  int line(String key) {
    NodeTuple entry = entries.get(key);
    return entry == null ? line() : line(entry.getKeyNode());
  }

  boolean has(String key) {
    return entries.containsKey(key);
  }

  /** True when {@code key} is present with no value ({@code key:}, {@code key: ~}). */
  boolean hasNoValue(String key) {
    NodeTuple entry = entries.get(key);
    return entry != null && isNull(entry.getValueNode());
  }

  /** The keys, in file order. */
  Set<String> keys() {
    return entries.keySet();
  }

  /** Records a problem for every key not in {@code known}, suggesting the closest known one. */
  void allowOnly(Collection<String> known) {
    allowOnly(known, List.of());
  }

  /**
   * Like {@link #allowOnly(Collection)}, but says nothing about the keys in {@code
   * reportedElsewhere} (keys the caller refuses with a message of its own).
   */
  void allowOnly(Collection<String> known, Collection<String> reportedElsewhere) {
    for (NodeTuple entry : entries.values()) {
      String key = ((ScalarNode) entry.getKeyNode()).getValue();
      if (known.contains(key) || reportedElsewhere.contains(key)) {
        continue;
      }
      Optional<String> closest = Names.closest(key, known);
      String list = "known keys: " + String.join(", ", known);
      report(
          entry.getKeyNode(),
          Optional.of(key),
          "unknown key",
          closest.map(c -> "did you mean '" + c + "'? (" + list + ")").orElse(list));
    }
  }

  /**
   * The key this mapping uses for a setting with two names, {@code name} and its older {@code
   * alias} (docs/concepts/glossary.md): the one present, {@code name} when neither is. Both present
   * is a problem at the alias.
   */
  String nameOf(String name, String alias) {
    if (has(name) && has(alias)) {
      report(
          alias,
          "'" + alias + "' and '" + name + "' are the same setting",
          "keep " + name + ": (" + alias + ": is its older name) and remove " + alias);
      return name;
    }
    return has(alias) ? alias : name;
  }

  /** Records a problem about {@code key} (at its line, or this mapping's when absent). */
  void report(String key, String message, String fix) {
    problems.add(
        Problem.of(
            file, line(key), subject, Optional.of(keyPrefix + key), message, Optional.of(fix)));
  }

  /** A problem about {@code key} at its line, not recorded: for a warning. */
  Problem at(String key, String message, String fix) {
    return Problem.of(
        file, line(key), subject, Optional.of(keyPrefix + key), message, Optional.of(fix));
  }

  /** Records a problem about this whole mapping, at its first line. */
  void reportHere(String message, String fix) {
    problems.add(Problem.of(file, line(), subject, Optional.empty(), message, Optional.of(fix)));
  }

  /** Records that a required key is missing. */
  void reportMissing(String key, String fix) {
    problems.add(
        Problem.of(
            file,
            line(),
            subject,
            Optional.of(keyPrefix + key),
            "required key is missing",
            Optional.of(fix)));
  }

  /**
   * A scalar value; a list, a map or an empty value is a problem. {@code example} shows the key
   * written right.
   */
  Optional<String> string(String key, String example) {
    NodeTuple entry = entries.get(key);
    if (entry == null) {
      return Optional.empty();
    }
    return scalar(entry.getValueNode(), key, example);
  }

  /** The text of a scalar under {@code key}, if it is one; nothing is reported either way. */
  Optional<String> peek(String key) {
    NodeTuple entry = entries.get(key);
    if (entry == null
        || !(entry.getValueNode() instanceof ScalarNode)
        || isNull(entry.getValueNode())) {
      return Optional.empty();
    }
    return Optional.of(((ScalarNode) entry.getValueNode()).getValue());
  }

  /**
   * A value from a fixed set of words, written in lower case as the contract writes them (e.g.
   * {@code drop} or {@code keep}); a word that differs only in case is refused with its lower-case
   * spelling, as an upper-case duration unit is (ADR 0083).
   */
  <E extends Enum<E>> Optional<E> choice(String key, Class<E> type, String fixHint) {
    return string(key, key + ": " + fixHint)
        .flatMap(
            text -> {
              String written = text.trim();
              String meant = null;
              for (E value : type.getEnumConstants()) {
                String word = value.name().toLowerCase(Locale.ROOT);
                if (word.equals(written)) {
                  return Optional.of(value);
                }
                if (word.equalsIgnoreCase(written)) {
                  meant = word;
                }
              }
              report(
                  key,
                  "'"
                      + text
                      + "' is not one of "
                      + words(type)
                      + (meant == null
                          ? ""
                          : " (words are written in lower case: write " + meant + ")"),
                  "write " + key + ": " + fixHint);
              return Optional.empty();
            });
  }

  /** A duration such as {@code 5m}. */
  Optional<Duration> duration(String key, String example) {
    return string(key, key + ": " + example)
        .flatMap(
            text -> {
              try {
                return Optional.of(Durations.parse(text));
              } catch (IllegalArgumentException e) {
                report(
                    key,
                    "bad duration: "
                        + e.getMessage()
                        + dev.streamform.policies.schema.InvisibleCharacters.describe(text)
                            .map(d -> " ('" + text + "' " + d + ")")
                            .orElse(""),
                    "e.g. " + key + ": " + example);
                return Optional.empty();
              }
            });
  }

  /** A list of scalars, in flow ({@code [a, b]}) or block style. */
  Optional<List<String>> stringList(String key, String example) {
    NodeTuple entry = entries.get(key);
    if (entry == null) {
      return Optional.empty();
    }
    Node value = entry.getValueNode();
    if (!(value instanceof SequenceNode)) {
      report(key, "expected a list, got " + describe(value), "write " + example);
      return Optional.empty();
    }
    List<String> items = new ArrayList<>();
    boolean ok = true;
    for (Node item : ((SequenceNode) value).getValue()) {
      Optional<String> text = scalar(item, key, example);
      ok &= text.isPresent();
      text.ifPresent(items::add);
    }
    return ok ? Optional.of(items) : Optional.empty();
  }

  /** A nested mapping, about {@code childSubject} (or this mapping's subject when empty). */
  Optional<YamlMap> map(String key, Optional<String> childSubject, String example) {
    NodeTuple entry = entries.get(key);
    if (entry == null) {
      return Optional.empty();
    }
    Node value = entry.getValueNode();
    if (value instanceof MappingNode) {
      return Optional.of(
          new YamlMap(file, childSubject.or(() -> subject), (MappingNode) value, problems));
    }
    report(key, "expected a map, got " + describe(value), "write " + example);
    return Optional.empty();
  }

  /** True when {@code key} is present and its value is a mapping. */
  boolean isMap(String key) {
    NodeTuple entry = entries.get(key);
    return entry != null && entry.getValueNode() instanceof MappingNode;
  }

  /**
   * The mapping under {@code key}, about the same subject, whose problems name their keys as {@code
   * key.inner} (e.g. {@code window.every}). Absent or not a mapping: empty, the latter reported.
   */
  Optional<YamlMap> nested(String key, String example) {
    NodeTuple entry = entries.get(key);
    if (entry == null) {
      return Optional.empty();
    }
    Node value = entry.getValueNode();
    if (value instanceof MappingNode) {
      return Optional.of(
          new YamlMap(file, subject, keyPrefix + key + ".", (MappingNode) value, problems));
    }
    report(key, "expected a map, got " + describe(value), "write " + example);
    return Optional.empty();
  }

  private Optional<String> scalar(Node value, String key, String example) {
    if (!(value instanceof ScalarNode)) {
      report(
          value,
          Optional.of(key),
          "expected a single value, got " + describe(value),
          "write " + example);
      return Optional.empty();
    }
    if (isNull(value)) {
      report(value, Optional.of(key), "has no value", "write " + example);
      return Optional.empty();
    }
    return Optional.of(((ScalarNode) value).getValue());
  }

  /**
   * The items of a list of mappings under {@code key}, each about {@code subjectOf(i)} (i from 1).
   * A value that is not a list, or an item that is not a mapping, is a problem and is skipped.
   */
  List<YamlMap> mapList(
      String key, java.util.function.IntFunction<String> subjectOf, String example) {
    NodeTuple entry = entries.get(key);
    List<YamlMap> items = new ArrayList<>();
    if (entry == null || isNull(entry.getValueNode())) {
      return items;
    }
    Node value = entry.getValueNode();
    if (!(value instanceof SequenceNode)) {
      report(key, "expected a list, got " + describe(value), "write " + example);
      return items;
    }
    int i = 0;
    for (Node item : ((SequenceNode) value).getValue()) {
      i++;
      if (item instanceof MappingNode) {
        items.add(new YamlMap(file, Optional.of(subjectOf.apply(i)), (MappingNode) item, problems));
      } else {
        report(
            item,
            Optional.of(key),
            "item " + i + " is " + describe(item) + ", not a map",
            "write " + example);
      }
    }
    return items;
  }

  /**
   * The items of a list of mappings under {@code key}, about the same subject, whose problems name
   * their keys as {@code key[i].inner} (i from 1, e.g. {@code effects[1].when}). A value that is
   * not a list, or an item that is not a mapping, is a problem and is skipped.
   */
  List<YamlMap> nestedList(String key, String example) {
    NodeTuple entry = entries.get(key);
    List<YamlMap> items = new ArrayList<>();
    if (entry == null) {
      return items;
    }
    Node value = entry.getValueNode();
    if (!(value instanceof SequenceNode)) {
      report(key, "expected a list, got " + describe(value), "write " + example);
      return items;
    }
    int i = 0;
    for (Node item : ((SequenceNode) value).getValue()) {
      i++;
      if (item instanceof MappingNode) {
        items.add(
            new YamlMap(
                file, subject, keyPrefix + key + "[" + i + "].", (MappingNode) item, problems));
      } else {
        report(
            item,
            Optional.of(key + "[" + i + "]"),
            "expected a map, got " + describe(item),
            "write " + example);
      }
    }
    return items;
  }

  /**
   * The scalar under {@code key} with its YAML type: Long for an integer, BigDecimal for a float
   * (kept exact), Boolean, String, or null for an explicit null. Empty when the key is absent or
   * its value is not a scalar (the latter is reported).
   */
  Optional<java.util.Map.Entry<String, Object>> typedScalar(String key, String example) {
    NodeTuple entry = entries.get(key);
    if (entry == null) {
      return Optional.empty();
    }
    Node value = entry.getValueNode();
    if (!(value instanceof ScalarNode)) {
      report(
          value,
          Optional.of(key),
          "expected a single value, got " + describe(value),
          "write " + example);
      return Optional.empty();
    }
    String text = ((ScalarNode) value).getValue();
    Object typed;
    Tag tag = value.getTag();
    try {
      if (Tag.NULL.equals(tag)) {
        typed = null;
      } else if (Tag.INT.equals(tag)) {
        typed = Long.valueOf(text.replace("_", ""));
      } else if (Tag.FLOAT.equals(tag)) {
        typed = new java.math.BigDecimal(text.replace("_", ""));
      } else if (Tag.BOOL.equals(tag)) {
        typed = Boolean.valueOf(text.toLowerCase(Locale.ROOT).matches("true|yes|on|y"));
      } else {
        typed = text;
      }
    } catch (NumberFormatException e) {
      typed = text;
    }
    return Optional.of(new java.util.AbstractMap.SimpleEntry<>(text, typed));
  }

  private void report(Node at, Optional<String> key, String message, String fix) {
    problems.add(
        Problem.of(
            file, line(at), subject, key.map(k -> keyPrefix + k), message, Optional.of(fix)));
  }

  private static boolean isNull(Node node) {
    return node instanceof ScalarNode && Tag.NULL.equals(node.getTag());
  }

  private static int line(Node node) {
    return node.getStartMark() == null ? 0 : node.getStartMark().getLine() + 1;
  }

  private static String describe(Node node) {
    if (node instanceof SequenceNode) {
      return "a list";
    }
    if (node instanceof MappingNode) {
      return "a map";
    }
    return isNull(node) ? "nothing" : "'" + ((ScalarNode) node).getValue() + "'";
  }

  private static <E extends Enum<E>> String words(Class<E> type) {
    List<String> words = new ArrayList<>();
    for (E value : type.getEnumConstants()) {
      words.add(value.name().toLowerCase(Locale.ROOT));
    }
    return String.join(", ", words);
  }

  private static String oneLine(String text) {
    return text == null ? "" : text.replaceAll("\\s*\\n\\s*", " ").trim();
  }
}
