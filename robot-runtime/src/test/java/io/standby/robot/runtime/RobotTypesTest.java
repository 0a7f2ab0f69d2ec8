package io.standby.robot.runtime;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.robot.Robot;
import io.standby.robot.RobotFactory;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.jar.JarEntry;
import java.util.jar.JarOutputStream;
import javax.tools.JavaCompiler;
import javax.tools.ToolProvider;
import org.bson.Document;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Robot types from the class path and from plugin jars, built here from source like a user would. */
class RobotTypesTest {

    @TempDir
    Path dir;

    @Test
    void aFactoryInAPluginJarIsFoundAndMakesRobots() throws Exception {
        Path plugins = Files.createDirectories(dir.resolve("plugins"));
        buildPluginJar(plugins.resolve("greeter.jar"));
        Files.writeString(plugins.resolve("README.txt"), "not a jar: ignored");

        RobotTypes types = RobotTypes.discover(plugins);

        assertTrue(types.names().contains("greeter"), types.names().toString());
        Robot robot = types.get("greeter").orElseThrow().create(new Document("name", "x"));
        assertEquals("plugin.Greeter$1", robot.getClass().getName());
        assertTrue(RobotTypes.builtIn().get("greeter").isEmpty(), "not on the node's own class path");
    }

    @Test
    void aPluginDirectoryThatIsNotADirectoryIsRejectedByName() {
        Path missing = dir.resolve("nope");
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RobotTypes.discover(missing));
        assertEquals("invalid plugin directory '" + missing + "': not a directory", e.getMessage());
    }

    @Test
    void twoFactoriesForOneTypeAreRejected() {
        RobotFactory one = factory("same");
        // A second class: the same factory class found twice (one jar listed twice) is not a conflict.
        RobotFactory other = new RobotFactory() {
            @Override
            public String type() {
                return "same";
            }

            @Override
            public Robot create(Document config) {
                return ctx -> {};
            }
        };
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> RobotTypes.of(one, other));
        assertTrue(e.getMessage().contains("two robot factories for type 'same'"), e.getMessage());
    }

    private static RobotFactory factory(String type) {
        return new RobotFactory() {
            @Override
            public String type() {
                return type;
            }

            @Override
            public Robot create(Document config) {
                return ctx -> {};
            }
        };
    }

    private void buildPluginJar(Path jar) throws IOException {
        Path src = Files.createDirectories(dir.resolve("src/plugin"));
        Files.writeString(src.resolve("Greeter.java"), """
                package plugin;

                import io.standby.robot.Robot;
                import io.standby.robot.RobotFactory;
                import org.bson.Document;

                public final class Greeter implements RobotFactory {
                    public String type() { return "greeter"; }
                    public Robot create(Document config) {
                        return new Robot() {
                            public void run(io.standby.robot.RobotContext ctx) { }
                        };
                    }
                }
                """);
        Path classes = Files.createDirectories(dir.resolve("classes"));
        JavaCompiler javac = ToolProvider.getSystemJavaCompiler();
        int rc = javac.run(
                null,
                null,
                null,
                "-d",
                classes.toString(),
                "-cp",
                System.getProperty("java.class.path"),
                src.resolve("Greeter.java").toString());
        assertEquals(0, rc, "the plugin compiles");
        try (JarOutputStream out = new JarOutputStream(Files.newOutputStream(jar))) {
            for (String name : new String[] {"plugin/Greeter.class", "plugin/Greeter$1.class"}) {
                out.putNextEntry(new JarEntry(name));
                Files.copy(classes.resolve(name), out);
                out.closeEntry();
            }
            out.putNextEntry(new JarEntry("META-INF/services/io.standby.robot.RobotFactory"));
            OutputStream services = out;
            services.write("plugin.Greeter\n".getBytes());
            out.closeEntry();
        }
    }
}
