package dev.streamform.transforms.decisions;

import dev.streamform.core.digest.RevisionIdentity;
import java.io.Serializable;
import java.math.BigDecimal;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.beam.sdk.schemas.Schema;
import org.apache.beam.sdk.values.Row;

/**
 * Prepares a {@link Scorer}'s inputs from an event's feature values and its own columns. Like the
 * scorer it must be a pure function, and its {@link #digest()} goes into every decision's identity
 * ({@code preprocessing_digest}).
 */
public interface Preprocessor extends Serializable {

  /** The scorer's inputs for {@code event}, whose key's features read {@code features}. */
  Map<String, Double> prepare(Map<String, Double> features, Row event);

  /** A digest of everything the preparation depends on. */
  String digest();

  /**
   * The default: the features by name, then every numeric column of the event (int64, double,
   * decimal) by its column name; a null column is left out. Its digest is the hash of its name.
   */
  static Preprocessor featuresAndNumericColumns() {
    return new FeaturesAndNumericColumns();
  }

  /** See {@link #featuresAndNumericColumns()}. */
  final class FeaturesAndNumericColumns implements Preprocessor {
    private static final String DIGEST =
        RevisionIdentity.hash(List.of("preprocessor", "features-and-numeric-columns", 1L));

    @Override
    public Map<String, Double> prepare(Map<String, Double> features, Row event) {
      Map<String, Double> inputs = new LinkedHashMap<>(features);
      for (Schema.Field f : event.getSchema().getFields()) {
        Object v = event.getValue(f.getName());
        if (v instanceof Long
            || v instanceof Double
            || v instanceof BigDecimal
            || v instanceof Integer) {
          inputs.putIfAbsent(f.getName(), ((Number) v).doubleValue());
        }
      }
      return inputs;
    }

    @Override
    public String digest() {
      return DIGEST;
    }

    @Override
    public boolean equals(Object o) {
      return o instanceof FeaturesAndNumericColumns;
    }

    @Override
    public int hashCode() {
      return DIGEST.hashCode();
    }
  }
}
