package dev.streamform.pipelines.kafka;

import dev.streamform.policies.project.KafkaClientProperties;
import dev.streamform.policies.project.KafkaClientProperties.Setting;
import java.io.Serializable;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;
import org.apache.beam.sdk.transforms.SerializableFunction;
import org.apache.kafka.clients.consumer.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.Producer;

/**
 * How Streamform's Kafka clients reach a cluster: the bootstrap servers and the client settings
 * ({@link KafkaClientProperties}: TLS, SASL and any other consumer, producer or admin property).
 *
 * <p>Where secrets live. A setting is <em>hidden</em> when its key holds a secret ({@code
 * sasl.jaas.config}, {@code *.password}, and every property Kafka itself types as a password) or
 * its value holds a reference ({@code ${NAME}}, {@code ${file:PATH:KEY}}); a secret's value is
 * always a reference ({@link KafkaClientProperties#read} refuses a literal one). Hidden settings
 * never reach a transform's configuration that a runner shows: KafkaIO gets only the shown ones
 * ({@link #shownConfig()}, passed with {@code withConsumerConfigUpdates}/{@code
 * withProducerConfigUpdates}, which KafkaIO's display data lists), and the hidden ones are applied
 * by the consumer and producer factories ({@link #consumerFactory()}, {@link #producerFactory()}),
 * which are not displayed. Those factories carry the hidden settings as written — {@code ${NAME}}
 * references, not their values — and resolve them when a client is created, on the worker: the job
 * graph a cluster receives, its savepoints (the Flink runner keeps the Kafka source in its
 * checkpoint state) and the pipeline options (Flink's dashboard shows them) hold no secret from the
 * environment. The workers need the same variables (and the files {@code ssl.*.location} names) as
 * the client.
 *
 * <p>{@link #toString()} shows the bootstrap servers and the keys, never a hidden value.
 */
public final class KafkaConnection implements Serializable {
  private static final long serialVersionUID = 1L;

  private final String bootstrapServers;
  private final List<Setting> settings;

  private KafkaConnection(String bootstrapServers, List<Setting> settings) {
    this.bootstrapServers = Objects.requireNonNull(bootstrapServers, "bootstrapServers");
    this.settings = List.copyOf(settings);
  }

  /** Kafka's defaults (PLAINTEXT, no authentication) at {@code bootstrapServers}. */
  public static KafkaConnection plaintext(String bootstrapServers) {
    return new KafkaConnection(bootstrapServers, List.of());
  }

  /**
   * {@code properties} at {@code bootstrapServers} (which wins over a bootstrap.servers setting).
   */
  public static KafkaConnection of(String bootstrapServers, KafkaClientProperties properties) {
    return new KafkaConnection(
        bootstrapServers, properties.without(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG).settings());
  }

  public String bootstrapServers() {
    return bootstrapServers;
  }

  /** True when no client setting was given. */
  public boolean isPlaintext() {
    return settings.isEmpty();
  }

  /**
   * True when {@code key}'s value must never be shown ({@link KafkaClientProperties#isSecret}: a
   * property some Kafka client types as a password, or a secret by name).
   */
  public static boolean isSecret(String key) {
    return KafkaClientProperties.isSecret(key);
  }

  private static boolean hidden(Setting s) {
    return s.hasReference() || isSecret(s.key());
  }

  /** The settings a transform may show: literal values of keys that are not secret. */
  public Map<String, Object> shownConfig() {
    Map<String, Object> shown = new LinkedHashMap<>();
    for (Setting s : settings) {
      if (!hidden(s)) {
        shown.put(s.key(), s.value());
      }
    }
    return shown;
  }

  private List<Setting> hiddenSettings() {
    List<Setting> hidden = new ArrayList<>();
    for (Setting s : settings) {
      if (hidden(s)) {
        hidden.add(s);
      }
    }
    return hidden;
  }

  /**
   * Every setting resolved from this process's environment, with the bootstrap servers: for a
   * client this process creates itself (the admin client, {@code produce}, {@code consume}).
   *
   * @throws KafkaClientProperties.UnsetVariableException naming file, line and variable
   */
  public Map<String, Object> clientConfig() {
    return clientConfig(System::getenv);
  }

  Map<String, Object> clientConfig(Function<String, String> environment) {
    Map<String, Object> config =
        new LinkedHashMap<>(KafkaClientProperties.resolve(settings, environment));
    config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers);
    return config;
  }

  /** The setting of {@code key}, if one was given. */
  public java.util.Optional<Setting> setting(String key) {
    return settings.stream().filter(s -> s.key().equals(key)).findFirst();
  }

  /**
   * What a message must never show: the values the references of secret settings resolve to in
   * {@code environment}, and every piece of them a parser could split off (words between blanks,
   * quotes, {@code =} and {@code ;}), longest first.
   */
  List<String> secretFragments(Function<String, String> environment) {
    java.util.Set<String> fragments = new java.util.HashSet<>();
    for (Setting s : settings) {
      if (!isSecret(s.key())) {
        continue;
      }
      for (String value : KafkaClientProperties.referencedValues(s, environment)) {
        fragments.add(value);
        for (String piece : value.split("[\\s\"'\\\\=;]+")) {
          if (piece.length() >= 3) {
            fragments.add(piece);
          }
        }
      }
    }
    List<String> sorted = new ArrayList<>(fragments);
    sorted.sort(java.util.Comparator.comparingInt(String::length).reversed());
    return sorted;
  }

  /** {@code text} with every {@link #secretFragments} replaced by {@code <hidden>}. */
  String scrubbed(String text) {
    return scrubbed(text, secretFragments(System::getenv));
  }

  static String scrubbed(String text, List<String> fragments) {
    String out = text;
    for (String f : fragments) {
      out = out.replace(f, "<hidden>");
    }
    return out;
  }

  /** Checks that every referenced variable is set here, before anything is started. */
  public void checkEnvironment() {
    KafkaClientProperties.resolve(settings, System::getenv);
  }

  /**
   * KafkaIO's consumer factory: KafkaIO's configuration plus the hidden settings, resolved where
   * the consumer is created.
   */
  public SerializableFunction<Map<String, Object>, Consumer<byte[], byte[]>> consumerFactory() {
    return new ConsumerFactory(hiddenSettings());
  }

  /** KafkaIO's producer factory, as {@link #consumerFactory()}. */
  public <K, V> SerializableFunction<Map<String, Object>, Producer<K, V>> producerFactory() {
    return new ProducerFactory<>(hiddenSettings());
  }

  /** Applies hidden settings on top of KafkaIO's configuration, on the worker. */
  private static Map<String, Object> withHidden(Map<String, Object> config, List<Setting> hidden) {
    Map<String, Object> all = new LinkedHashMap<>(config);
    all.putAll(KafkaClientProperties.resolve(hidden, System::getenv));
    return all;
  }

  /**
   * What a source's consumer is created with: KafkaIO's configuration and the hidden settings, then
   * the source's own settings, which none of them overrides ({@link
   * KafkaSource#withReadingContract}).
   */
  static Map<String, Object> sourceConsumerConfig(
      Map<String, Object> config, List<Setting> hidden) {
    return KafkaSource.withReadingContract(withHidden(config, hidden));
  }

  private static final class ConsumerFactory
      implements SerializableFunction<Map<String, Object>, Consumer<byte[], byte[]>> {
    private static final long serialVersionUID = 1L;
    private final List<Setting> hidden;

    ConsumerFactory(List<Setting> hidden) {
      this.hidden = hidden;
    }

    @Override
    public Consumer<byte[], byte[]> apply(Map<String, Object> config) {
      try {
        return new KafkaConsumer<>(sourceConsumerConfig(config, hidden));
      } catch (org.apache.kafka.common.KafkaException e) {
        throw withoutSecrets(e, hidden);
      }
    }

    @Override
    public String toString() {
      return "consumer with hidden settings " + keys(hidden);
    }
  }

  private static final class ProducerFactory<K, V>
      implements SerializableFunction<Map<String, Object>, Producer<K, V>> {
    private static final long serialVersionUID = 1L;
    private final List<Setting> hidden;

    ProducerFactory(List<Setting> hidden) {
      this.hidden = hidden;
    }

    @Override
    public Producer<K, V> apply(Map<String, Object> config) {
      try {
        return new KafkaProducer<>(withHidden(config, hidden));
      } catch (org.apache.kafka.common.KafkaException e) {
        throw withoutSecrets(e, hidden);
      }
    }

    @Override
    public String toString() {
      return "producer with hidden settings " + keys(hidden);
    }
  }

  /**
   * {@code e} as a KafkaException whose message (with its causes', in parentheses) holds no piece
   * of a secret, and which carries no cause (whose messages Kafka wrote from the settings): a
   * worker's failure is logged and shown by the runner.
   */
  private static org.apache.kafka.common.KafkaException withoutSecrets(
      org.apache.kafka.common.KafkaException e, List<Setting> hidden) {
    StringBuilder message = new StringBuilder(String.valueOf(e.getMessage()));
    for (Throwable c = e.getCause(); c != null && c != c.getCause(); c = c.getCause()) {
      message.append(" (").append(c.getMessage()).append(')');
    }
    org.apache.kafka.common.KafkaException clean =
        new org.apache.kafka.common.KafkaException(
            scrubbed(
                message.toString(),
                new KafkaConnection("", hidden).secretFragments(System::getenv)));
    clean.setStackTrace(e.getStackTrace());
    return clean;
  }

  private static List<String> keys(List<Setting> settings) {
    return settings.stream().map(Setting::key).toList();
  }

  /** E.g. {@code 127.0.0.1:9094 (security.protocol=SASL_SSL, sasl.jaas.config=<hidden>)}. */
  @Override
  public String toString() {
    if (settings.isEmpty()) {
      return bootstrapServers;
    }
    StringBuilder s = new StringBuilder(bootstrapServers).append(" (");
    for (int i = 0; i < settings.size(); i++) {
      Setting setting = settings.get(i);
      s.append(i == 0 ? "" : ", ")
          .append(setting.key())
          .append('=')
          .append(hidden(setting) ? "<hidden>" : setting.value());
    }
    return s.append(')').toString();
  }
}
