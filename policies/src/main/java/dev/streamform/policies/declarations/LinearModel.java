package dev.streamform.policies.declarations;

import com.google.auto.value.AutoValue;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.Map;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * A linear scoring model declared in a file: {@code score = bias + sum(weights[name] * input)},
 * where an input is a feature (an output column of the model's query) or a numeric column of the
 * scored event. Its {@link #digest()} is the SHA-256 of the file's bytes, so it names the model as
 * written: any edit, even of a comment, is a new model digest.
 *
 * <pre>
 * # models/receipt_risk.linear.yml
 * bias: 0
 * weights:
 *   amount: 0.01
 *   spend_1h: 0.001
 * </pre>
 */
@AutoValue
public abstract class LinearModel {

  public abstract Map<String, Double> weights();

  public abstract double bias();

  /** SHA-256 of the file's bytes, 64 lowercase hex digits. */
  public abstract String digest();

  public static LinearModel of(Map<String, Double> weights, double bias, String digest) {
    return new AutoValue_LinearModel(Map.copyOf(weights), bias, digest);
  }

  /**
   * Reads a linear model file.
   *
   * @throws IllegalArgumentException with what is wrong, when it is not {@code bias: <number>} and
   *     {@code weights: {<name>: <number>, ...}} and nothing else
   * @throws IOException when it cannot be read
   */
  public static LinearModel read(Path file) throws IOException {
    byte[] bytes = Files.readAllBytes(file);
    Object doc;
    try {
      // a repeated key is ambiguous (which weight holds?): refused, as in every declaration file
      LoaderOptions options = new LoaderOptions();
      options.setAllowDuplicateKeys(false);
      doc =
          new Yaml(new SafeConstructor(options))
              .load(new String(bytes, java.nio.charset.StandardCharsets.UTF_8));
    } catch (org.yaml.snakeyaml.error.MarkedYAMLException e) {
      throw new IllegalArgumentException(
          "line "
              + (e.getProblemMark() == null ? 0 : e.getProblemMark().getLine() + 1)
              + ": "
              + e.getProblem());
    } catch (RuntimeException e) {
      throw new IllegalArgumentException(
          "is not YAML: " + e.getMessage().lines().findFirst().orElse(""));
    }
    if (!(doc instanceof Map)) {
      throw new IllegalArgumentException("is not a map of bias: and weights:");
    }
    Map<?, ?> top = (Map<?, ?>) doc;
    for (Object k : top.keySet()) {
      if (!"bias".equals(k) && !"weights".equals(k)) {
        throw new IllegalArgumentException(
            "has an unknown key '" + k + "' (only bias and weights)");
      }
    }
    Object bias = top.containsKey("bias") ? top.get("bias") : 0;
    if (!(bias instanceof Number)) {
      throw new IllegalArgumentException("bias '" + bias + "' is not a number");
    }
    if (!(top.get("weights") instanceof Map) || ((Map<?, ?>) top.get("weights")).isEmpty()) {
      throw new IllegalArgumentException("has no weights: {<feature or column>: <number>, ...}");
    }
    Map<String, Double> weights = new LinkedHashMap<>();
    for (Map.Entry<?, ?> w : ((Map<?, ?>) top.get("weights")).entrySet()) {
      if (!(w.getValue() instanceof Number)) {
        throw new IllegalArgumentException(
            "weight '" + w.getKey() + "' is not a number: " + w.getValue());
      }
      double weight = ((Number) w.getValue()).doubleValue();
      if (!Double.isFinite(weight)) {
        throw new IllegalArgumentException(
            "weight '"
                + w.getKey()
                + "' is not a finite number: "
                + w.getValue()
                + "; give a number a double holds, e.g. 0.5 or -1.2e3");
      }
      weights.put(String.valueOf(w.getKey()), weight);
    }
    if (!Double.isFinite(((Number) bias).doubleValue())) {
      throw new IllegalArgumentException(
          "bias '"
              + bias
              + "' is not a finite number; give a number a double holds, e.g. 0 or 1.5");
    }
    try {
      return of(
          weights,
          ((Number) bias).doubleValue(),
          HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes)));
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException("every Java runtime has SHA-256", e);
    }
  }
}
