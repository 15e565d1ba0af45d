// The app's targets depend on this one, which compiles first: without the App trait the build
// stops here, with what to type, rather than on the app's missing modules.
#if !App
    #error("worldcup builds with its App trait: `swift build --traits App` (make run and make test pass it)")
#endif
