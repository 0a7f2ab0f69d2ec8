package io.standby.robot.runtime;

import io.standby.robot.RobotFactory;
import java.io.IOException;
import java.net.MalformedURLException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.ServiceConfigurationError;
import java.util.ServiceLoader;
import java.util.TreeMap;
import java.util.stream.Stream;

/** The robot types a node can run: its {@link RobotFactory}s, by type. */
public final class RobotTypes {

    private final Map<String, RobotFactory> factories;

    private RobotTypes(Map<String, RobotFactory> factories) {
        this.factories = factories;
    }

    /** Exactly these factories. @throws IllegalArgumentException if two share a type */
    public static RobotTypes of(RobotFactory... factories) {
        return of(List.of(factories));
    }

    private static RobotTypes of(Iterable<RobotFactory> factories) {
        Map<String, RobotFactory> byType = new TreeMap<>();
        for (RobotFactory factory : factories) {
            RobotFactory other = byType.put(factory.type(), factory);
            if (other != null && other.getClass() != factory.getClass()) {
                throw new IllegalArgumentException("two robot factories for type '" + factory.type() + "': "
                        + other.getClass().getName() + " and "
                        + factory.getClass().getName());
            }
        }
        return new RobotTypes(byType);
    }

    /** The factories on the runtime's own class path: the built-in types. */
    public static RobotTypes builtIn() {
        return discover(RobotTypes.class.getClassLoader());
    }

    /** The factories on the class path of {@code loader}. */
    public static RobotTypes discover(ClassLoader loader) {
        try {
            return of(ServiceLoader.load(RobotFactory.class, loader));
        } catch (ServiceConfigurationError e) {
            throw new IllegalStateException("cannot load a robot factory: " + e.getMessage(), e);
        }
    }

    /**
     * The factories on this class path and in the jars of {@code pluginDir} (null: only the built-in ones) (each jar
     * lists its factories in {@code META-INF/services/io.standby.robot.RobotFactory}).
     *
     * @throws IllegalArgumentException if the directory does not exist or cannot be read
     */
    public static RobotTypes discover(Path pluginDir) {
        if (pluginDir == null) {
            return builtIn();
        }
        if (!Files.isDirectory(pluginDir)) {
            throw new IllegalArgumentException("invalid plugin directory '" + pluginDir + "': not a directory");
        }
        List<URL> jars = new ArrayList<>();
        try (Stream<Path> files = Files.list(pluginDir)) {
            for (Path jar : files.filter(f -> f.getFileName().toString().endsWith(".jar"))
                    .sorted()
                    .toList()) {
                jars.add(jar.toUri().toURL());
            }
        } catch (MalformedURLException e) {
            throw new IllegalArgumentException("invalid plugin jar in '" + pluginDir + "': " + e.getMessage(), e);
        } catch (IOException e) {
            throw new IllegalArgumentException("invalid plugin directory '" + pluginDir + "': " + e.getMessage(), e);
        }
        // Never closed: the robots' classes are loaded from it for as long as the node runs.
        ClassLoader loader =
                new URLClassLoader("standby-plugins", jars.toArray(URL[]::new), RobotTypes.class.getClassLoader());
        return discover(loader);
    }

    /** These types and {@code more}. @throws IllegalArgumentException if two factories share a type */
    public RobotTypes with(List<RobotFactory> more) {
        if (more.isEmpty()) {
            return this;
        }
        List<RobotFactory> all = new ArrayList<>(factories.values());
        all.addAll(more);
        return of(all);
    }

    public Optional<RobotFactory> get(String type) {
        return Optional.ofNullable(type == null ? null : factories.get(type));
    }

    /** The known types, sorted. */
    public List<String> names() {
        return List.copyOf(factories.keySet());
    }
}
