/*
 * Calls every GenTL 1.6 function of a producer with NULL pointers, NULL,
 * made-up, stale and wrong-kind handles, before and after GCInitLib and
 * after GCCloseLib, as a careless consumer would: each call must return an
 * error code (the expected one where the standard names it), never crash.
 * The producer is loaded with dlopen and every function resolved with
 * dlsym, as a GenTL consumer does. Declarations are our own (plain C types
 * for the standard's typedefs). Prints one line per failed check and
 * exits 1 if any failed.
 *
 * Usage: misuse PATH/TO/linerate.cti
 */
#define _DEFAULT_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef int32_t E;
typedef void *H;

#define SUCCESS 0
#define NOT_INITIALIZED -1002
#define NOT_IMPLEMENTED -1003
#define RESOURCE_IN_USE -1004
#define INVALID_HANDLE -1006
#define INVALID_PARAMETER -1009
#define BUFFER_TOO_SMALL -1016

static void *lib;
static int failures;
static int checks;

static void *sym(const char *name) {
    void *f = dlsym(lib, name);
    if (!f) {
        printf("FAIL: %s is not exported\n", name);
        failures++;
    }
    return f;
}

#define FN(ret, name, args) typedef ret (*name##_t) args; static name##_t name##_f;
FN(E, GCInitLib, (void))
FN(E, GCCloseLib, (void))
FN(E, GCGetInfo, (int32_t, int32_t *, void *, size_t *))
FN(E, GCGetLastError, (E *, char *, size_t *))
FN(E, GCReadPort, (H, uint64_t, void *, size_t *))
FN(E, GCWritePort, (H, uint64_t, const void *, size_t *))
FN(E, GCGetPortURL, (H, char *, size_t *))
FN(E, GCGetPortInfo, (H, int32_t, int32_t *, void *, size_t *))
FN(E, GCRegisterEvent, (H, int32_t, H *))
FN(E, GCUnregisterEvent, (H, int32_t))
FN(E, EventGetData, (H, void *, size_t *, uint64_t))
FN(E, EventGetDataInfo, (H, const void *, size_t, int32_t, int32_t *, void *, size_t *))
FN(E, EventGetInfo, (H, int32_t, int32_t *, void *, size_t *))
FN(E, EventFlush, (H))
FN(E, EventKill, (H))
FN(E, TLOpen, (H *))
FN(E, TLClose, (H))
FN(E, TLGetInfo, (H, int32_t, int32_t *, void *, size_t *))
FN(E, TLGetNumInterfaces, (H, uint32_t *))
FN(E, TLGetInterfaceID, (H, uint32_t, char *, size_t *))
FN(E, TLGetInterfaceInfo, (H, const char *, int32_t, int32_t *, void *, size_t *))
FN(E, TLOpenInterface, (H, const char *, H *))
FN(E, TLUpdateInterfaceList, (H, uint8_t *, uint64_t))
FN(E, IFClose, (H))
FN(E, IFGetInfo, (H, int32_t, int32_t *, void *, size_t *))
FN(E, IFGetNumDevices, (H, uint32_t *))
FN(E, IFGetDeviceID, (H, uint32_t, char *, size_t *))
FN(E, IFUpdateDeviceList, (H, uint8_t *, uint64_t))
FN(E, IFGetDeviceInfo, (H, const char *, int32_t, int32_t *, void *, size_t *))
FN(E, IFOpenDevice, (H, const char *, int32_t, H *))
FN(E, DevGetPort, (H, H *))
FN(E, DevGetNumDataStreams, (H, uint32_t *))
FN(E, DevGetDataStreamID, (H, uint32_t, char *, size_t *))
FN(E, DevOpenDataStream, (H, const char *, H *))
FN(E, DevGetInfo, (H, int32_t, int32_t *, void *, size_t *))
FN(E, DevClose, (H))
FN(E, DSAnnounceBuffer, (H, void *, size_t, void *, H *))
FN(E, DSAllocAndAnnounceBuffer, (H, size_t, void *, H *))
FN(E, DSFlushQueue, (H, int32_t))
FN(E, DSStartAcquisition, (H, int32_t, uint64_t))
FN(E, DSStopAcquisition, (H, int32_t))
FN(E, DSGetInfo, (H, int32_t, int32_t *, void *, size_t *))
FN(E, DSGetBufferID, (H, uint32_t, H *))
FN(E, DSClose, (H))
FN(E, DSRevokeBuffer, (H, H, void **, void **))
FN(E, DSQueueBuffer, (H, H))
FN(E, DSGetBufferInfo, (H, H, int32_t, int32_t *, void *, size_t *))
FN(E, GCGetNumPortURLs, (H, uint32_t *))
FN(E, GCGetPortURLInfo, (H, uint32_t, int32_t, int32_t *, void *, size_t *))
FN(E, GCReadPortStacked, (H, void *, size_t *))
FN(E, GCWritePortStacked, (H, void *, size_t *))
FN(E, DSGetBufferChunkData, (H, H, void *, size_t *))
FN(E, IFGetParentTL, (H, H *))
FN(E, DevGetParentIF, (H, H *))
FN(E, DSGetParentDev, (H, H *))
FN(E, DSGetNumBufferParts, (H, H, uint32_t *))
FN(E, DSGetBufferPartInfo, (H, H, uint32_t, int32_t, int32_t *, void *, size_t *))
FN(E, DSAnnounceCompositeBuffer, (H, size_t, void **, size_t *, void *, H *))
FN(E, DSGetBufferInfoStacked, (H, H, void *, size_t))
FN(E, DSGetBufferPartInfoStacked, (H, H, void *, size_t))
FN(E, DSGetNumFlows, (H, uint32_t *))
FN(E, DSGetFlowInfo, (H, uint32_t, int32_t, int32_t *, void *, size_t *))
FN(E, DSGetNumBufferSegments, (H, H, uint32_t *))
FN(E, DSGetBufferSegmentInfo, (H, H, uint32_t, int32_t, int32_t *, void *, size_t *))

#define LOAD(name) name##_f = (name##_t)sym(#name)

/* `got` must be an error; `want` (if not 0) the exact one. */
static void expect(const char *what, E got, E want) {
    checks++;
    if (got == SUCCESS || (want != 0 && got != want)) {
        printf("FAIL: %s returned %d (wanted %s%d)\n", what, got, want ? "" : "an error, e.g. ", want ? want : INVALID_HANDLE);
        failures++;
    }
}

/* A call with NULL pointers as well: the bad pointer may be found first. */
static void expect_or_null(const char *what, E got, E want) {
    expect(what, got, got == INVALID_PARAMETER ? INVALID_PARAMETER : want);
}

static void ok(const char *what, E got) {
    checks++;
    if (got != SUCCESS) {
        printf("FAIL: %s returned %d, not success\n", what, got);
        failures++;
    }
}

/* Every handle-taking function, called with `h` and NULL pointers, and
 * with `h` and valid pointers: an error each time. */
static void misuse_all(const char *label, H h, E want) {
    char text[256];
    size_t size = sizeof text;
    int32_t type;
    uint32_t n;
    uint8_t changed;
    H out;
    char buf[64];
    void *p1, *p2;
    char what[128];
#define TRY(call) do { snprintf(what, sizeof what, "%s: %s", label, #call); size = sizeof text; expect(what, call, want); } while (0)
#define TRYN(call) do { snprintf(what, sizeof what, "%s: %s", label, #call); size = sizeof text; expect_or_null(what, call, want); } while (0)
    TRYN(GCReadPort_f(h, 0, NULL, NULL));
    TRY(GCReadPort_f(h, 0, buf, &size));
    TRYN(GCWritePort_f(h, 0, NULL, NULL));
    TRY(GCWritePort_f(h, 0, buf, &size));
    TRY(GCGetPortURL_f(h, text, &size));
    TRY(GCGetPortInfo_f(h, 0, &type, text, &size));
    TRYN(GCGetPortInfo_f(h, 0, NULL, NULL, NULL));
    TRY(GCRegisterEvent_f(h, 1, &out));
    TRYN(GCRegisterEvent_f(h, 1, NULL));
    TRY(GCUnregisterEvent_f(h, 1));
    TRY(EventGetData_f(h, buf, &size, 1));
    TRYN(EventGetData_f(h, NULL, NULL, 0));
    TRY(EventGetInfo_f(h, 0, &type, text, &size));
    TRY(EventFlush_f(h));
    TRY(EventKill_f(h));
    TRY(TLClose_f(h));
    TRY(TLGetInfo_f(h, 0, &type, text, &size));
    TRY(TLGetNumInterfaces_f(h, &n));
    TRYN(TLGetNumInterfaces_f(h, NULL));
    TRY(TLGetInterfaceID_f(h, 0, text, &size));
    TRY(TLGetInterfaceInfo_f(h, "eth0", 0, &type, text, &size));
    TRYN(TLGetInterfaceInfo_f(h, NULL, 0, NULL, NULL, NULL));
    TRY(TLOpenInterface_f(h, "eth0", &out));
    TRYN(TLOpenInterface_f(h, NULL, NULL));
    TRY(TLUpdateInterfaceList_f(h, &changed, 0));
    TRY(IFClose_f(h));
    TRY(IFGetInfo_f(h, 0, &type, text, &size));
    TRY(IFGetNumDevices_f(h, &n));
    TRY(IFGetDeviceID_f(h, 0, text, &size));
    TRY(IFUpdateDeviceList_f(h, &changed, 0));
    TRY(IFGetDeviceInfo_f(h, "x", 0, &type, text, &size));
    TRY(IFOpenDevice_f(h, "x", 3, &out));
    TRYN(IFOpenDevice_f(h, NULL, 3, NULL));
    TRY(DevGetPort_f(h, &out));
    TRY(DevGetNumDataStreams_f(h, &n));
    TRY(DevGetDataStreamID_f(h, 0, text, &size));
    TRY(DevOpenDataStream_f(h, "stream0", &out));
    TRY(DevGetInfo_f(h, 0, &type, text, &size));
    TRY(DevClose_f(h));
    TRYN(DSAnnounceBuffer_f(h, buf, sizeof buf, NULL, &out));
    TRYN(DSAnnounceBuffer_f(h, NULL, 0, NULL, NULL));
    TRYN(DSAllocAndAnnounceBuffer_f(h, 64, NULL, &out));
    TRY(DSFlushQueue_f(h, 2));
    TRY(DSStartAcquisition_f(h, 0, (uint64_t)-1));
    TRY(DSStopAcquisition_f(h, 0));
    TRY(DSGetInfo_f(h, 7, &type, text, &size));
    TRY(DSGetBufferID_f(h, 0, &out));
    TRY(DSClose_f(h));
    TRY(DSRevokeBuffer_f(h, h, &p1, &p2));
    TRY(DSQueueBuffer_f(h, h));
    TRY(DSGetBufferInfo_f(h, h, 0, &type, text, &size));
    TRY(GCGetNumPortURLs_f(h, &n));
    TRY(GCGetPortURLInfo_f(h, 0, 0, &type, text, &size));
    TRYN(GCReadPortStacked_f(h, NULL, NULL));
    TRYN(GCWritePortStacked_f(h, NULL, NULL));
    TRYN(DSGetBufferChunkData_f(h, h, NULL, &size));
    TRY(IFGetParentTL_f(h, &out));
    TRY(DevGetParentIF_f(h, &out));
    TRY(DSGetParentDev_f(h, &out));
    TRY(DSGetNumBufferParts_f(h, h, &n));
    TRY(DSGetBufferPartInfo_f(h, h, 0, 0, &type, text, &size));
#undef TRY
#undef TRYN
}

static void not_implemented(void) {
    H out;
    uint32_t n;
    int32_t type;
    char text[64];
    size_t size = sizeof text;
    expect("DSAnnounceCompositeBuffer", DSAnnounceCompositeBuffer_f(NULL, 0, NULL, NULL, NULL, &out), NOT_IMPLEMENTED);
    expect("DSGetBufferInfoStacked", DSGetBufferInfoStacked_f(NULL, NULL, NULL, 0), NOT_IMPLEMENTED);
    expect("DSGetBufferPartInfoStacked", DSGetBufferPartInfoStacked_f(NULL, NULL, NULL, 0), NOT_IMPLEMENTED);
    expect("DSGetNumFlows", DSGetNumFlows_f(NULL, &n), NOT_IMPLEMENTED);
    expect("DSGetFlowInfo", DSGetFlowInfo_f(NULL, 0, 0, &type, text, &size), NOT_IMPLEMENTED);
    expect("DSGetNumBufferSegments", DSGetNumBufferSegments_f(NULL, NULL, &n), NOT_IMPLEMENTED);
    expect("DSGetBufferSegmentInfo", DSGetBufferSegmentInfo_f(NULL, NULL, 0, 0, &type, text, &size), NOT_IMPLEMENTED);
    expect("EventGetDataInfo", EventGetDataInfo_f(NULL, NULL, 0, 0, &type, text, &size), NOT_IMPLEMENTED);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s PRODUCER.cti\n", argv[0]);
        return 2;
    }
    lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) {
        printf("FAIL: dlopen: %s\n", dlerror());
        return 1;
    }
    LOAD(GCInitLib); LOAD(GCCloseLib); LOAD(GCGetInfo); LOAD(GCGetLastError);
    LOAD(GCReadPort); LOAD(GCWritePort); LOAD(GCGetPortURL); LOAD(GCGetPortInfo);
    LOAD(GCRegisterEvent); LOAD(GCUnregisterEvent); LOAD(EventGetData); LOAD(EventGetDataInfo);
    LOAD(EventGetInfo); LOAD(EventFlush); LOAD(EventKill); LOAD(TLOpen); LOAD(TLClose);
    LOAD(TLGetInfo); LOAD(TLGetNumInterfaces); LOAD(TLGetInterfaceID); LOAD(TLGetInterfaceInfo);
    LOAD(TLOpenInterface); LOAD(TLUpdateInterfaceList); LOAD(IFClose); LOAD(IFGetInfo);
    LOAD(IFGetNumDevices); LOAD(IFGetDeviceID); LOAD(IFUpdateDeviceList); LOAD(IFGetDeviceInfo);
    LOAD(IFOpenDevice); LOAD(DevGetPort); LOAD(DevGetNumDataStreams); LOAD(DevGetDataStreamID);
    LOAD(DevOpenDataStream); LOAD(DevGetInfo); LOAD(DevClose); LOAD(DSAnnounceBuffer);
    LOAD(DSAllocAndAnnounceBuffer); LOAD(DSFlushQueue); LOAD(DSStartAcquisition);
    LOAD(DSStopAcquisition); LOAD(DSGetInfo); LOAD(DSGetBufferID); LOAD(DSClose);
    LOAD(DSRevokeBuffer); LOAD(DSQueueBuffer); LOAD(DSGetBufferInfo); LOAD(GCGetNumPortURLs);
    LOAD(GCGetPortURLInfo); LOAD(GCReadPortStacked); LOAD(GCWritePortStacked);
    LOAD(DSGetBufferChunkData); LOAD(IFGetParentTL); LOAD(DevGetParentIF); LOAD(DSGetParentDev);
    LOAD(DSGetNumBufferParts); LOAD(DSGetBufferPartInfo); LOAD(DSAnnounceCompositeBuffer);
    LOAD(DSGetBufferInfoStacked); LOAD(DSGetBufferPartInfoStacked); LOAD(DSGetNumFlows);
    LOAD(DSGetFlowInfo); LOAD(DSGetNumBufferSegments); LOAD(DSGetBufferSegmentInfo);
    if (failures)
        return 1;

    /* Before GCInitLib: GCGetInfo answers, the rest is NOT_INITIALIZED. */
    size_t size = 0;
    int32_t type = 0;
    ok("GCGetInfo(ID, NULL buffer) before init", GCGetInfo_f(0, &type, NULL, &size));
    checks++;
    if (size != strlen("linerate.cti") + 1 || type != 1) {
        printf("FAIL: GCGetInfo(ID) size %zu type %d\n", size, type);
        failures++;
    }
    /* PATHNAME is the file the consumer loaded. */
    char path[4096], real[4096];
    size = sizeof path;
    ok("GCGetInfo(PATHNAME)", GCGetInfo_f(6, NULL, path, &size));
    checks++;
    if (!realpath(argv[1], real) || strcmp(path, real) != 0) {
        printf("FAIL: GCGetInfo(PATHNAME) is %s, not %s\n", path, real);
        failures++;
    }
    char small[4];
    size = sizeof small;
    expect("GCGetInfo(ID) into 4 bytes", GCGetInfo_f(0, NULL, small, &size), BUFFER_TOO_SMALL);
    expect("GCGetInfo(ID, NULL size)", GCGetInfo_f(0, NULL, NULL, NULL), INVALID_PARAMETER);
    expect("GCGetInfo(unknown command)", GCGetInfo_f(12345, NULL, NULL, &size), INVALID_PARAMETER);
    misuse_all("before GCInitLib", NULL, NOT_INITIALIZED);

    ok("GCInitLib", GCInitLib_f());
    expect("GCInitLib twice", GCInitLib_f(), RESOURCE_IN_USE);

    /* NULL, made-up and stale handles. */
    misuse_all("NULL handle", NULL, INVALID_HANDLE);
    misuse_all("made-up handle", (H)(uintptr_t)0xdeadbeef0, INVALID_HANDLE);
    H tl = NULL;
    ok("TLOpen", TLOpen_f(&tl));
    expect("TLOpen twice", TLOpen_f(&tl), RESOURCE_IN_USE);
    uint8_t changed;
    ok("TLUpdateInterfaceList", TLUpdateInterfaceList_f(tl, &changed, 100));
    uint32_t n = 99;
    ok("TLGetNumInterfaces", TLGetNumInterfaces_f(tl, &n));
    /* The system handle is the wrong kind for the interface, device and
     * stream functions. */
    H out;
    expect("IFGetNumDevices(system handle)", IFGetNumDevices_f(tl, &n), INVALID_HANDLE);
    expect("DevGetPort(system handle)", DevGetPort_f(tl, &out), INVALID_HANDLE);
    expect("DSAllocAndAnnounceBuffer(system handle)", DSAllocAndAnnounceBuffer_f(tl, 64, NULL, &out), INVALID_HANDLE);
    expect("EventKill(system handle)", EventKill_f(tl), INVALID_HANDLE);
    expect("TLOpenInterface(no such interface)", TLOpenInterface_f(tl, "no-such-interface", &out), -1007);
    expect("TLGetInterfaceID(index out of range)", TLGetInterfaceID_f(tl, 100000, NULL, &size), -1017);
    expect("GCRegisterEvent(system, MODULE)", GCRegisterEvent_f(tl, 5, &out), NOT_IMPLEMENTED);

    /* The last error is the text of the last failure on this thread. */
    E code = 0;
    char text[512];
    size = sizeof text;
    ok("GCGetLastError", GCGetLastError_f(&code, text, &size));
    checks++;
    if (code != NOT_IMPLEMENTED || size < 2 || strlen(text) + 1 != size) {
        printf("FAIL: GCGetLastError gave %d, %zu bytes: %s\n", code, size, text);
        failures++;
    }
    expect("GCGetLastError(NULL size)", GCGetLastError_f(&code, text, NULL), INVALID_PARAMETER);

    /* A read far beyond any register is refused before memory is taken. */
    size = (size_t)-1;
    expect("GCReadPort(system port, SIZE_MAX bytes)", GCReadPort_f(tl, 0, text, &size), INVALID_PARAMETER);
    size = 8;
    expect("GCReadPort(system port, past the XML)", GCReadPort_f(tl, (uint64_t)-4, text, &size), -1015);

    ok("TLClose", TLClose_f(tl));
    misuse_all("stale system handle", tl, INVALID_HANDLE);
    not_implemented();

    ok("GCCloseLib", GCCloseLib_f());
    expect("TLOpen after GCCloseLib", TLOpen_f(&tl), NOT_INITIALIZED);
    expect("GCCloseLib twice", GCCloseLib_f(), NOT_INITIALIZED);
    /* The producer can be initialised again. */
    ok("GCInitLib again", GCInitLib_f());
    ok("GCCloseLib again", GCCloseLib_f());

    printf("%d checks, %d failed\n", checks, failures);
    dlclose(lib);
    return failures ? 1 : 0;
}
