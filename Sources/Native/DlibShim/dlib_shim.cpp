// C API over dlib's frontal face detector + 68-point shape predictor. Compiled with -O3 (Package.swift):
// dlib's templates are ~57x slower unoptimised (PLATFORM.md).
//
// Loading (decision): dlib's own loaders cost about 1.3 s of CPU per process on this machine:
// `get_frontal_face_detector()` decompresses its built-in model (0.4 s) and the 95 MB shape predictor is
// deserialised float by float (0.9 s). The first load therefore writes a cache file (when given a path): the
// detector in dlib's own uncompressed serialisation, and the predictor's arrays as they are in memory, behind
// a header that names the model file's size and modification time. Later processes read the cache with a few
// large reads (tens of milliseconds). Every read checks the header, a checksum of the whole file, every count
// against what is left and every index against its range; any mismatch means the model file is loaded the slow
// way again (and the cache rewritten). Reading and writing stream through a 1 MB buffer: no second copy of the
// model is held.
#include "dlib_shim.h"

#include <dlib/image_processing.h>
#include <dlib/image_processing/frontal_face_detector.h>
#include <dlib/image_transforms.h>
#include <dlib/serialize.h>
#include <malloc.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#include <fcntl.h>
#include <mutex>
#include <sstream>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

namespace {

// dlib's shape_predictor keeps its arrays private and offers no constructor that takes all four; an explicit
// template instantiation may name private members (C++ [temp.explicit]), which gives the cache reader and writer
// a member pointer to each. A dlib that renames or retypes a member fails to compile here, never at run time.
template <typename Tag, typename Tag::type Member> struct member_access {
    friend typename Tag::type member_of(Tag) { return Member; }
};
struct sp_initial_shape { typedef dlib::matrix<float, 0, 1> dlib::shape_predictor::*type; friend type member_of(sp_initial_shape); };
struct sp_forests { typedef std::vector<std::vector<dlib::impl::regression_tree>> dlib::shape_predictor::*type; friend type member_of(sp_forests); };
struct sp_anchor_idx { typedef std::vector<std::vector<unsigned long>> dlib::shape_predictor::*type; friend type member_of(sp_anchor_idx); };
struct sp_deltas { typedef std::vector<std::vector<dlib::vector<float, 2>>> dlib::shape_predictor::*type; friend type member_of(sp_deltas); };
template struct member_access<sp_initial_shape, &dlib::shape_predictor::initial_shape>;
template struct member_access<sp_forests, &dlib::shape_predictor::forests>;
template struct member_access<sp_anchor_idx, &dlib::shape_predictor::anchor_idx>;
template struct member_access<sp_deltas, &dlib::shape_predictor::deltas>;

const char cache_magic[8] = {'C', 'A', 'I', 'R', 'N', 'L', 'M', '1'};

/// FNV-1a over 8-byte words (then the tail bytes), fed in pieces whose sizes are multiples of 8 (the last one
/// excepted): cheap enough for 70 MB (about 10 ms), and any changed byte changes it, so a damaged cache is never
/// read as a model.
struct checksum {
    uint64_t hash = 1469598103934665603ULL;
    void add(const char *data, size_t count) {
        size_t i = 0;
        for (; i + 8 <= count; i += 8) {
            uint64_t word;
            std::memcpy(&word, data + i, 8);
            hash = (hash ^ word) * 1099511628211ULL;
        }
        for (; i < count; ++i) hash = (hash ^ static_cast<unsigned char>(data[i])) * 1099511628211ULL;
    }
};

/// The facts of the model file a cache belongs to.
struct model_identity {
    uint64_t size;
    int64_t mtime_sec;
    int64_t mtime_nsec;
};

bool identify(const char *path, model_identity &id) {
    struct stat st;
    if (stat(path, &st) != 0) return false;
    id.size = static_cast<uint64_t>(st.st_size);
    id.mtime_sec = static_cast<int64_t>(st.st_mtim.tv_sec);
    id.mtime_nsec = static_cast<int64_t>(st.st_mtim.tv_nsec);
    return true;
}

constexpr size_t chunk_size = 1 << 20;  // a multiple of 8 (see `checksum`)

/// Writes plain values to a file through a buffer, summing what it writes; `finish` appends the sum.
struct writer {
    int fd;
    std::vector<char> buffer;
    checksum sum;
    bool ok = true;
    explicit writer(int fd) : fd(fd) { buffer.reserve(chunk_size); }
    void write_out(const char *data, size_t count) {
        size_t done = 0;
        while (ok && done < count) {
            ssize_t n = ::write(fd, data + done, count - done);
            if (n <= 0) ok = false; else done += static_cast<size_t>(n);
        }
    }
    void flush() {
        sum.add(buffer.data(), buffer.size());
        write_out(buffer.data(), buffer.size());
        buffer.clear();
    }
    void put_raw(const void *data, size_t count) {
        const char *bytes = static_cast<const char *>(data);
        while (count > 0) {
            const size_t n = std::min(chunk_size - buffer.size(), count);
            buffer.insert(buffer.end(), bytes, bytes + n);
            bytes += n;
            count -= n;
            if (buffer.size() == chunk_size) flush();
        }
    }
    template <typename T> void put(const T &value) { put_raw(&value, sizeof(T)); }
    void put_floats(const dlib::matrix<float, 0, 1> &m) {
        put<uint64_t>(static_cast<uint64_t>(m.size()));
        if (m.size() > 0) put_raw(&m(0), sizeof(float) * static_cast<size_t>(m.size()));
    }
    /// Writes what is buffered, then the sum of everything.
    bool finish() {
        flush();
        const uint64_t total = sum.hash;
        write_out(reinterpret_cast<const char *>(&total), sizeof total);
        return ok;
    }
};

/// Reads plain values from a file through a buffer, refusing to run past the body (the file less its 8-byte
/// sum) and summing what it reads; `sum_matches` compares with the stored sum once everything was read.
struct reader {
    int fd;
    uint64_t unread;  // body bytes not yet in the buffer
    std::vector<char> buffer;
    size_t position = 0;
    checksum sum;
    bool ok = true;
    reader(int fd, uint64_t body) : fd(fd), unread(body) {}
    bool read_in(char *data, size_t count) {
        size_t done = 0;
        while (done < count) {
            ssize_t n = ::read(fd, data + done, count - done);
            if (n <= 0) return false;
            done += static_cast<size_t>(n);
        }
        return true;
    }
    bool fill() {
        const size_t want = static_cast<size_t>(std::min<uint64_t>(chunk_size, unread));
        if (want == 0) return false;
        buffer.resize(want);
        if (!read_in(buffer.data(), want)) return false;
        sum.add(buffer.data(), want);
        unread -= want;
        position = 0;
        return true;
    }
    uint64_t left() const { return unread + (buffer.size() - position); }
    void get_raw(void *data, size_t count) {
        char *out = static_cast<char *>(data);
        while (ok && count > 0) {
            if (position == buffer.size() && !fill()) { ok = false; return; }
            const size_t n = std::min(count, buffer.size() - position);
            std::memcpy(out, buffer.data() + position, n);
            position += n;
            out += n;
            count -= n;
        }
    }
    template <typename T> T get() {
        T value{};
        get_raw(&value, sizeof(T));
        return value;
    }
    /// A count of items of `item_size` bytes that the rest of the body can hold.
    uint64_t count(size_t item_size) {
        const uint64_t n = get<uint64_t>();
        if (!ok || (item_size > 0 && n > left() / item_size)) { ok = false; return 0; }
        return n;
    }
    void get_floats(dlib::matrix<float, 0, 1> &m) {
        const uint64_t n = count(sizeof(float));
        if (!ok) return;
        m.set_size(static_cast<long>(n));
        if (n > 0) get_raw(&m(0), sizeof(float) * n);
    }
    /// After the body was read whole: whether the stored sum matches it.
    bool sum_matches() {
        uint64_t stored = 0;
        if (!ok || left() != 0 || !read_in(reinterpret_cast<char *>(&stored), sizeof stored)) return false;
        return stored == sum.hash;
    }
};

/// Writes the cache to `path` through a private temporary file, fsynced and renamed; false on any failure.
bool write_cache(const char *path, const model_identity &id, const dlib::frontal_face_detector &detector,
                 const dlib::shape_predictor &predictor) {
    const std::string temporary = std::string(path) + ".tmp." + std::to_string(getpid());
    const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return false;
    fchmod(fd, 0600);
    writer w(fd);
    w.put_raw(cache_magic, sizeof cache_magic);
    w.put(id);
    std::ostringstream plain;
    dlib::serialize(detector, plain);
    const std::string detector_bytes = plain.str();
    w.put<uint64_t>(detector_bytes.size());
    w.put_raw(detector_bytes.data(), detector_bytes.size());

    w.put_floats(predictor.*member_of(sp_initial_shape()));
    const auto &forests = predictor.*member_of(sp_forests());
    w.put<uint64_t>(forests.size());
    for (const auto &forest : forests) {
        w.put<uint64_t>(forest.size());
        for (const auto &tree : forest) {
            w.put<uint64_t>(tree.splits.size());
            for (const auto &split : tree.splits) {
                w.put<uint64_t>(split.idx1);
                w.put<uint64_t>(split.idx2);
                w.put<float>(split.thresh);
            }
            w.put<uint64_t>(tree.leaf_values.size());
            for (const auto &leaf : tree.leaf_values) w.put_floats(leaf);
        }
    }
    const auto &anchors = predictor.*member_of(sp_anchor_idx());
    w.put<uint64_t>(anchors.size());
    for (const auto &cascade : anchors) {
        w.put<uint64_t>(cascade.size());
        for (unsigned long index : cascade) w.put<uint64_t>(index);
    }
    const auto &deltas = predictor.*member_of(sp_deltas());
    w.put<uint64_t>(deltas.size());
    for (const auto &cascade : deltas) {
        w.put<uint64_t>(cascade.size());
        for (const auto &d : cascade) {
            w.put<float>(d.x());
            w.put<float>(d.y());
        }
    }
    const bool written = w.finish() && fsync(fd) == 0;
    close(fd);
    if (!written || rename(temporary.c_str(), path) != 0) {
        unlink(temporary.c_str());
        return false;
    }
    return true;
}

/// Fills `detector` and `predictor` from the cache at `path`; false (leaving them unspecified) when it is
/// missing, made from another model file, damaged, or inconsistent.
bool read_cache(const char *path, const model_identity &id, dlib::frontal_face_detector &detector,
                dlib::shape_predictor &predictor) {
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st;
    const uint64_t size = fstat(fd, &st) == 0 && st.st_size > 0 ? static_cast<uint64_t>(st.st_size) : 0;
    const bool ok = size > sizeof cache_magic + sizeof(model_identity) + 8 && [&] {
        reader r(fd, size - 8);
        char magic[sizeof cache_magic];
        r.get_raw(magic, sizeof magic);
        const model_identity stored = r.get<model_identity>();
        if (!r.ok || std::memcmp(magic, cache_magic, sizeof magic) != 0 || stored.size != id.size ||
            stored.mtime_sec != id.mtime_sec || stored.mtime_nsec != id.mtime_nsec) {
            return false;
        }
        std::string detector_bytes(static_cast<size_t>(r.count(1)), '\0');
        r.get_raw(&detector_bytes[0], detector_bytes.size());

        auto &initial_shape = predictor.*member_of(sp_initial_shape());
        r.get_floats(initial_shape);
        const uint64_t parts = static_cast<uint64_t>(initial_shape.size()) / 2;
        auto &forests = predictor.*member_of(sp_forests());
        forests.resize(r.count(8));
        for (auto &forest : forests) {
            forest.resize(r.count(8));
            for (auto &tree : forest) {
                tree.splits.resize(r.count(20));
                for (auto &split : tree.splits) {
                    split.idx1 = static_cast<unsigned long>(r.get<uint64_t>());
                    split.idx2 = static_cast<unsigned long>(r.get<uint64_t>());
                    split.thresh = r.get<float>();
                }
                tree.leaf_values.resize(r.count(8));
                for (auto &leaf : tree.leaf_values) {
                    r.get_floats(leaf);
                    if (r.ok && leaf.size() != initial_shape.size()) return false;
                }
                if (!r.ok) return false;
            }
        }
        auto &anchors = predictor.*member_of(sp_anchor_idx());
        anchors.resize(r.count(8));
        for (auto &cascade : anchors) {
            cascade.resize(r.count(8));
            for (auto &index : cascade) {
                index = static_cast<unsigned long>(r.get<uint64_t>());
                if (index >= parts) return false;
            }
        }
        auto &deltas = predictor.*member_of(sp_deltas());
        deltas.resize(r.count(8));
        for (auto &cascade : deltas) {
            cascade.resize(r.count(8));
            for (auto &d : cascade) {
                d.x() = r.get<float>();
                d.y() = r.get<float>();
            }
        }
        if (!r.sum_matches() || forests.size() != anchors.size() || anchors.size() != deltas.size()) return false;
        for (size_t c = 0; c < forests.size(); ++c) {
            if (anchors[c].size() != deltas[c].size()) return false;
            for (const auto &tree : forests[c]) {
                // dlib's trees are complete: n splits, n + 1 leaves; every split names a feature pixel of its cascade.
                if (tree.leaf_values.size() != tree.splits.size() + 1) return false;
                for (const auto &split : tree.splits) {
                    if (split.idx1 >= anchors[c].size() || split.idx2 >= anchors[c].size()) return false;
                }
            }
        }
        std::istringstream plain(detector_bytes);
        dlib::deserialize(detector, plain);
        return true;
    }();
    close(fd);
    return ok;
}

}  // namespace

struct cairn_landmarker {
    dlib::frontal_face_detector detector;
    dlib::shape_predictor predictor;
    std::mutex lock;  // object_detector::operator() is not const: one detection at a time per handle
};

static void cairn_set_error(char *err, size_t errlen, const char *message) {
    if (err == nullptr || errlen == 0) return;
    std::snprintf(err, errlen, "%s", message);
}

extern "C" cairn_landmarker *cairn_landmarker_open(const char *model_path, const char *cache_path, int *used_cache,
                                                   char *err, size_t errlen) {
    if (used_cache != nullptr) *used_cache = 0;
    if (model_path == nullptr) {
        cairn_set_error(err, errlen, "no model path given");
        return nullptr;
    }
    cairn_landmarker *handle = nullptr;
    try {
        model_identity id{};
        const bool identified = identify(model_path, id);
        if (identified && cache_path != nullptr) {
            handle = new cairn_landmarker();
            bool cached = false;
            try {
                cached = read_cache(cache_path, id, handle->detector, handle->predictor) &&
                         handle->predictor.num_parts() == CAIRN_LANDMARK_COUNT;
            } catch (...) {
                cached = false;  // a damaged cache: the model itself is loaded below
            }
            if (cached) {
                if (used_cache != nullptr) *used_cache = 1;
                return handle;
            }
            delete handle;
            handle = nullptr;
        }
        handle = new cairn_landmarker();
        handle->detector = dlib::get_frontal_face_detector();
        dlib::deserialize(model_path) >> handle->predictor;
        if (handle->predictor.num_parts() != CAIRN_LANDMARK_COUNT) {
            delete handle;
            cairn_set_error(err, errlen, "the model does not have 68 landmark points");
            return nullptr;
        }
        if (identified && cache_path != nullptr) {
            try {
                write_cache(cache_path, id, handle->detector, handle->predictor);  // best effort
            } catch (...) {
            }
        }
        return handle;
    } catch (const std::exception &e) {
        delete handle;
        cairn_set_error(err, errlen, e.what());
    } catch (...) {
        delete handle;
        cairn_set_error(err, errlen, "unknown error while loading the model");
    }
    return nullptr;
}

extern "C" int cairn_landmarker_detect(cairn_landmarker *handle, const unsigned char *rgb, int width, int height,
                                       int upsample, cairn_face *faces, int max_faces, char *err, size_t errlen) {
    if (handle == nullptr || rgb == nullptr || width <= 0 || height <= 0 || upsample < 0 || upsample > 2 ||
        max_faces < 0 || (max_faces > 0 && faces == nullptr)) {
        cairn_set_error(err, errlen, "invalid arguments");
        return -1;
    }
    try {
        dlib::array2d<dlib::rgb_pixel> image(height, width);
        const unsigned char *p = rgb;
        for (long y = 0; y < height; ++y) {
            for (long x = 0; x < width; ++x, p += 3) image[y][x] = dlib::rgb_pixel(p[0], p[1], p[2]);
        }
        dlib::pyramid_down<2> pyramid;
        for (int i = 0; i < upsample; ++i) {
            dlib::array2d<dlib::rgb_pixel> larger;
            dlib::pyramid_up(image, larger, pyramid);
            dlib::swap(image, larger);
        }

        std::lock_guard<std::mutex> guard(handle->lock);
        std::vector<dlib::rect_detection> found;
        handle->detector(image, found, 0.0);
        std::sort(found.begin(), found.end(), [](const dlib::rect_detection &a, const dlib::rect_detection &b) {
            return a.rect.area() > b.rect.area();
        });

        const int count = static_cast<int>(found.size());
        const int written = std::min(count, max_faces);
        for (int i = 0; i < written; ++i) {
            const dlib::rectangle &box = found[i].rect;
            dlib::full_object_detection shape = handle->predictor(image, box);
            dlib::drectangle original(box);
            for (int u = 0; u < upsample; ++u) original = pyramid.rect_down(original);
            cairn_face &face = faces[i];
            face.left = static_cast<float>(original.left());
            face.top = static_cast<float>(original.top());
            face.width = static_cast<float>(original.width());
            face.height = static_cast<float>(original.height());
            face.score = static_cast<float>(found[i].detection_confidence);
            for (unsigned long k = 0; k < CAIRN_LANDMARK_COUNT; ++k) {
                dlib::dpoint point(shape.part(k));
                for (int u = 0; u < upsample; ++u) point = pyramid.point_down(point);
                face.x[k] = static_cast<float>(point.x());
                face.y[k] = static_cast<float>(point.y());
            }
        }
        return count;
    } catch (const std::exception &e) {
        cairn_set_error(err, errlen, e.what());
    } catch (...) {
        cairn_set_error(err, errlen, "unknown error while finding faces");
    }
    return -1;
}

extern "C" void cairn_landmarker_close(cairn_landmarker *handle) {
    if (handle == nullptr) return;
    delete handle;
    // The predictor is some 120,000 small blocks: without a trim, glibc keeps their pages for itself.
    malloc_trim(0);
}
