package io.standby.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.standby.node.StandbyNode;
import io.standby.node.web.NodeWeb;
import io.standby.robot.RobotFactory;
import io.standby.robot.admin.RobotTable;
import io.standby.slot.SlotTable;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.module.ModuleDescriptor;
import java.lang.module.ModuleFinder;
import java.lang.module.ModuleReader;
import java.lang.module.ModuleReference;
import java.lang.reflect.Executable;
import java.lang.reflect.Field;
import java.lang.reflect.GenericArrayType;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.lang.reflect.WildcardType;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The published API names no internal type. A module exports its {@code internal} package only to the project's own
 * modules, so a public constructor or method of an API type that takes or returns an internal type is one that no
 * embedder can call, and one that pins the internals as if they were API. Reads each jar's own module descriptor for
 * what it exports to everyone, and checks every public and protected member of every public type there.
 */
class ApiSurfaceTest {

    /** One class from each published module that has an API. */
    private static final List<Class<?>> MODULES =
            List.of(RobotFactory.class, SlotTable.class, RobotTable.class, StandbyNode.class, NodeWeb.class);

    @Test
    void noPublicMemberOfAnExportedTypeNamesAnInternalType() throws IOException {
        List<String> leaks = new ArrayList<>();
        int checked = 0;
        for (Class<?> anchor : MODULES) {
            ModuleReference module = moduleOf(anchor);
            Set<String> exported = openExports(module.descriptor());
            try (ModuleReader reader = module.open();
                    Stream<String> entries = reader.list()) {
                for (String entry : entries.filter(e -> e.endsWith(".class")).toList()) {
                    String name = entry.substring(0, entry.length() - ".class".length())
                            .replace('/', '.');
                    int dot = name.lastIndexOf('.');
                    if (dot < 0 || !exported.contains(name.substring(0, dot))) {
                        continue;
                    }
                    Class<?> type = load(name);
                    if (isVisible(type)) {
                        checked++;
                        leaks.addAll(leaksOf(type));
                    }
                }
            }
        }
        assertTrue(checked > 50, "checks the API types of every module, found " + checked);
        assertEquals(List.of(), leaks, "public members that name an internal type");
    }

    /** The descriptor's packages exported to everyone, not those exported to named friends only. */
    private static Set<String> openExports(ModuleDescriptor descriptor) {
        return descriptor.exports().stream()
                .filter(e -> !e.isQualified())
                .map(ModuleDescriptor.Exports::source)
                .collect(java.util.stream.Collectors.toSet());
    }

    private static List<String> leaksOf(Class<?> type) {
        List<String> leaks = new ArrayList<>();
        List<Member> members = new ArrayList<>();
        members.addAll(List.of(type.getDeclaredConstructors()));
        members.addAll(List.of(type.getDeclaredMethods()));
        members.addAll(List.of(type.getDeclaredFields()));
        for (Member member : members) {
            if (!isVisible(member.getModifiers()) || member.isSynthetic()) {
                continue;
            }
            List<Type> named = new ArrayList<>();
            if (member instanceof Executable e) {
                named.addAll(List.of(e.getGenericParameterTypes()));
                named.addAll(List.of(e.getGenericExceptionTypes()));
            }
            if (member instanceof Method m) {
                named.add(m.getGenericReturnType());
            }
            if (member instanceof Field f) {
                named.add(f.getGenericType());
            }
            if (named.stream().anyMatch(ApiSurfaceTest::namesInternal)) {
                leaks.add(type.getName() + "." + member.getName() + " " + named);
            }
        }
        if (namesInternal(type.getGenericSuperclass())
                || Stream.of(type.getGenericInterfaces()).anyMatch(ApiSurfaceTest::namesInternal)) {
            leaks.add(type.getName() + " extends or implements an internal type");
        }
        return leaks;
    }

    private static boolean namesInternal(Type type) {
        return switch (type) {
            case null -> false;
            case Class<?> c when c.isArray() -> namesInternal(c.getComponentType());
            case Class<?> c -> c.getPackageName().contains(".internal");
            case ParameterizedType p ->
                namesInternal(p.getRawType())
                        || Stream.of(p.getActualTypeArguments()).anyMatch(ApiSurfaceTest::namesInternal);
            case GenericArrayType a -> namesInternal(a.getGenericComponentType());
            case WildcardType w ->
                Stream.concat(Stream.of(w.getUpperBounds()), Stream.of(w.getLowerBounds()))
                        .anyMatch(ApiSurfaceTest::namesInternal);
            default -> false; // a type variable: its bounds belong to its declaration
        };
    }

    /** Public, or protected in a type that others may extend: what an embedder can reach. */
    private static boolean isVisible(int modifiers) {
        return Modifier.isPublic(modifiers) || Modifier.isProtected(modifiers);
    }

    /** A public type, and every type around it public too. */
    private static boolean isVisible(Class<?> type) {
        for (Class<?> t = type; t != null; t = t.getDeclaringClass()) {
            if (!Modifier.isPublic(t.getModifiers()) || t.isAnonymousClass() || t.isLocalClass()) {
                return false;
            }
        }
        return true;
    }

    private static ModuleReference moduleOf(Class<?> anchor) {
        try {
            Path where = Path.of(
                    anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
            return ModuleFinder.of(where).findAll().iterator().next();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static Class<?> load(String name) {
        try {
            return Class.forName(name, false, ApiSurfaceTest.class.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new UncheckedIOException(new IOException("listed but not loadable: " + name, e));
        }
    }
}
