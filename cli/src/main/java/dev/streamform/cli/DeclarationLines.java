package dev.streamform.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;

/**
 * Where a declaration is written: the line of a key path ({@code sources / orders / watermark}) in
 * a project's YAML file, for messages that name the file and line of a field to change.
 */
final class DeclarationLines {
  private DeclarationLines() {}

  /**
   * The 1-based line of the deepest key of {@code keys} found in {@code file} (the line of {@code
   * sources / orders} when {@code watermark} is not written under it); 0 when not even the first
   * key is there or the file cannot be read.
   */
  static int line(Path file, List<String> keys) {
    Node node;
    try {
      node = new Yaml().compose(Files.newBufferedReader(file));
    } catch (IOException | RuntimeException e) {
      return 0;
    }
    int line = 0;
    for (String key : keys) {
      if (!(node instanceof MappingNode mapping)) {
        return line;
      }
      Node next = null;
      for (NodeTuple t : mapping.getValue()) {
        if (t.getKeyNode() instanceof ScalarNode k && k.getValue().equals(key)) {
          line = t.getKeyNode().getStartMark().getLine() + 1;
          next = t.getValueNode();
          break;
        }
      }
      if (next == null) {
        return line;
      }
      node = next;
    }
    return line;
  }

  /** {@code file:line}, or {@code file} when the line is not known. */
  static String at(Path file, List<String> keys) {
    int line = line(file, keys);
    return line > 0 ? file + ":" + line : file.toString();
  }
}
