// C API over dlib's frontal face detector + 68-point shape predictor. Compiled with -O3 (Package.swift):
// dlib's templates are ~57x slower unoptimised (PLATFORM.md).
//
// Loading (decision): dlib's own loaders cost about 1.3 s of CPU per process on this machine:
// `get_frontal_face_detector()` decompresses its built-in model (0.4 s) and the 95 MB shape predictor is
// deserialised float by float (0.9 s). The first load therefore writes a cache file (when given a path): the
// detector in dlib's own uncompressed serialisation and the predictor's arrays as flat records, behind a header
// that names the model file's size and modification time. Later processes read only the cache's index (the
// detector, the shape, the anchors and the splits: 1.5 MB, checked against its checksum, every count against the
// file's size and every index against its range) and leave the 65 MB of leaf values in the file: a search reads
// the leaves its trees reach (7,500 of 120,000, each checked against its own checksum when read). Reading the
// whole predictor into memory cost about 100 ms of CPU (120,000 allocations) and 65 MB of memory per process.
// A leaf that fails its check makes the handle load the model the slow way (and rewrite the cache).
#include "dlib_shim.h"

#include <dlib/image_processing.h>
#include <dlib/image_processing/frontal_face_detector.h>
#include <dlib/image_transforms.h>
#include <dlib/serialize.h>

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

const char cache_magic[8] = {'C', 'A', 'I', 'R', 'N', 'L', 'M', '2'};

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

constexpr uint64_t max_count = 1ULL << 24;  // no count in a model comes near this

/// Appends plain values to a byte string.
struct byte_sink {
    std::string bytes;
    void put_raw(const void *data, size_t count) { bytes.append(static_cast<const char *>(data), count); }
    template <typename T> void put(const T &value) { put_raw(&value, sizeof(T)); }
};

/// Reads plain values from a byte string, never past its end.
struct byte_source {
    const std::string &bytes;
    size_t position = 0;
    bool ok = true;
    explicit byte_source(const std::string &bytes) : bytes(bytes) {}
    void get_raw(void *data, size_t count) {
        if (!ok || count > bytes.size() - position) { ok = false; return; }
        std::memcpy(data, bytes.data() + position, count);
        position += count;
    }
    template <typename T> T get() {
        T value{};
        get_raw(&value, sizeof(T));
        return value;
    }
};

bool write_all(int fd, const char *data, size_t count) {
    size_t done = 0;
    while (done < count) {
        const ssize_t n = ::write(fd, data + done, count - done);
        if (n <= 0) return false;
        done += static_cast<size_t>(n);
    }
    return true;
}

bool read_all_at(int fd, char *data, size_t count, uint64_t offset) {
    size_t done = 0;
    while (done < count) {
        const ssize_t n = ::pread(fd, data + done, count - done, static_cast<off_t>(offset + done));
        if (n <= 0) return false;
        done += static_cast<size_t>(n);
    }
    return true;
}

/// A leaf's checksum: its values and its place in the file, so a leaf moved elsewhere does not pass either.
uint64_t leaf_checksum(const float *values, size_t count, uint64_t index) {
    checksum sum;
    sum.add(reinterpret_cast<const char *>(&index), sizeof index);
    sum.add(reinterpret_cast<const char *>(values), count * sizeof(float));
    return sum.hash;
}

/// The shape predictor as the cache holds it (layout below). Every part but the leaf values is in memory (about
/// 1.5 MB); a leaf (136 floats) is read from the file when a tree reaches it, so a search reads 7,500 of the
/// 120,000 leaves (4 MB of 65 MB) and no process holds the rest. The arithmetic is dlib's
/// `shape_predictor::operator()` step by step (the same feature pixels, the same tree walk, the same float
/// additions in the same order), so the points are identical to dlib's own.
///
/// Cache file (all values little-endian as in memory): magic "CAIRNLM2", the model's identity, the counts
/// (cascades C, trees per cascade T, splits per tree S, parts P, feature pixels per cascade F; every tree of the
/// 68-point model is complete with S + 1 leaves), the frontal detector in dlib's uncompressed serialisation,
/// the initial shape (2P floats), the anchors (C x F u32) and deltas (C x F x 2 floats), the splits
/// (C x T x S x {u32, u32, float}), the checksum of everything so far; then the leaves
/// (C x T x (S + 1) x {2P floats, u64 checksum}). The size must be exactly what the counts say.
struct cached_predictor {
    int fd = -1;
    uint64_t cascades = 0, trees = 0, splits_per_tree = 0, parts = 0, features = 0;
    dlib::matrix<float, 0, 1> initial_shape;
    std::vector<std::vector<unsigned long>> anchor_idx;
    std::vector<std::vector<dlib::vector<float, 2>>> deltas;
    struct split { uint32_t idx1, idx2; float thresh; };
    std::vector<split> splits;
    uint64_t leaves_offset = 0;

    cached_predictor() = default;
    cached_predictor(const cached_predictor &) = delete;
    cached_predictor &operator=(const cached_predictor &) = delete;
    ~cached_predictor() { close_file(); }
    void close_file() {
        if (fd >= 0) ::close(fd);
        fd = -1;
    }
    bool open() const { return fd >= 0; }
    uint64_t leaf_record() const { return 2 * parts * sizeof(float) + sizeof(uint64_t); }

    /// The 68 points in `rect` of `img`; false when a leaf cannot be read or fails its checksum (the cache
    /// is then not to be trusted: the caller loads the model).
    template <typename image_type>
    bool predict(const image_type &img, const dlib::rectangle &rect, dlib::full_object_detection &out) const {
        using namespace dlib::impl;
        dlib::matrix<float, 0, 1> current_shape = initial_shape;
        std::vector<float> feature_pixel_values;
        const size_t values = static_cast<size_t>(2 * parts);
        std::vector<float> record(values + 2);  // the leaf's floats, then its u64 checksum
        const uint64_t leaves = splits_per_tree + 1;
        for (uint64_t iter = 0; iter < cascades; ++iter) {
            extract_feature_pixel_values(img, rect, current_shape, initial_shape, anchor_idx[iter], deltas[iter],
                                         feature_pixel_values);
            for (uint64_t t = 0; t < trees; ++t) {
                const split *tree = &splits[(iter * trees + t) * splits_per_tree];
                unsigned long i = 0;
                while (i < splits_per_tree) {
                    if ((float)feature_pixel_values[tree[i].idx1] - (float)feature_pixel_values[tree[i].idx2] > tree[i].thresh)
                        i = left_child(i);
                    else
                        i = right_child(i);
                }
                const uint64_t leaf = (iter * trees + t) * leaves + (i - splits_per_tree);
                if (!read_all_at(fd, reinterpret_cast<char *>(record.data()), static_cast<size_t>(leaf_record()),
                                 leaves_offset + leaf * leaf_record())) {
                    return false;
                }
                uint64_t stored;
                std::memcpy(&stored, &record[values], sizeof stored);
                if (stored != leaf_checksum(record.data(), values, leaf)) return false;
                for (size_t k = 0; k < values; ++k) current_shape(static_cast<long>(k)) += record[k];
            }
        }
        const dlib::point_transform_affine tform_to_img = unnormalizing_tform(rect);
        std::vector<dlib::point> points(static_cast<size_t>(parts));
        for (size_t k = 0; k < points.size(); ++k) points[k] = tform_to_img(location(current_shape, k));
        out = dlib::full_object_detection(rect, points);
        return true;
    }
};

/// Writes the cache to `path` through a private temporary file, fsynced and renamed; false on any failure or
/// when the model's trees are not all complete and of one size (then there is no cache: the model loads each time).
bool write_cache(const char *path, const model_identity &id, const dlib::frontal_face_detector &detector,
                 const dlib::shape_predictor &predictor) {
    const auto &initial_shape = predictor.*member_of(sp_initial_shape());
    const auto &forests = predictor.*member_of(sp_forests());
    const auto &anchors = predictor.*member_of(sp_anchor_idx());
    const auto &deltas = predictor.*member_of(sp_deltas());
    const uint64_t cascades = forests.size(), parts = static_cast<uint64_t>(initial_shape.size()) / 2;
    if (cascades == 0 || forests[0].empty() || anchors.size() != cascades || deltas.size() != cascades) return false;
    const uint64_t trees = forests[0].size(), splits = forests[0][0].splits.size(), features = anchors[0].size();
    for (uint64_t c = 0; c < cascades; ++c) {
        if (forests[c].size() != trees || anchors[c].size() != features || deltas[c].size() != features) return false;
        for (const auto &tree : forests[c]) {
            if (tree.splits.size() != splits || tree.leaf_values.size() != splits + 1) return false;
            for (const auto &leaf : tree.leaf_values) if (static_cast<uint64_t>(leaf.size()) != 2 * parts) return false;
        }
    }

    byte_sink index;
    index.put_raw(cache_magic, sizeof cache_magic);
    index.put(id);
    for (uint64_t n : {cascades, trees, splits, parts, features}) index.put<uint64_t>(n);
    std::ostringstream plain;
    dlib::serialize(detector, plain);
    const std::string detector_bytes = plain.str();
    index.put<uint64_t>(detector_bytes.size());
    index.put_raw(detector_bytes.data(), detector_bytes.size());
    index.put_raw(&initial_shape(0), sizeof(float) * 2 * parts);
    for (const auto &cascade : anchors) for (unsigned long a : cascade) index.put<uint32_t>(static_cast<uint32_t>(a));
    for (const auto &cascade : deltas) for (const auto &d : cascade) { index.put<float>(d.x()); index.put<float>(d.y()); }
    for (const auto &forest : forests) {
        for (const auto &tree : forest) {
            for (const auto &split : tree.splits) {
                index.put<uint32_t>(static_cast<uint32_t>(split.idx1));
                index.put<uint32_t>(static_cast<uint32_t>(split.idx2));
                index.put<float>(split.thresh);
            }
        }
    }
    checksum sum;
    sum.add(index.bytes.data(), index.bytes.size());
    index.put<uint64_t>(sum.hash);

    const std::string temporary = std::string(path) + ".tmp." + std::to_string(getpid());
    const int fd = open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0) return false;
    fchmod(fd, 0600);
    bool written = write_all(fd, index.bytes.data(), index.bytes.size());
    std::string buffer;
    buffer.reserve(chunk_size + 4096);
    uint64_t leaf = 0;
    for (const auto &forest : forests) {
        for (const auto &tree : forest) {
            for (const auto &values : tree.leaf_values) {
                buffer.append(reinterpret_cast<const char *>(&values(0)), sizeof(float) * 2 * parts);
                const uint64_t check = leaf_checksum(&values(0), static_cast<size_t>(2 * parts), leaf++);
                buffer.append(reinterpret_cast<const char *>(&check), sizeof check);
                if (buffer.size() >= chunk_size) {
                    written = written && write_all(fd, buffer.data(), buffer.size());
                    buffer.clear();
                }
            }
        }
    }
    written = written && write_all(fd, buffer.data(), buffer.size()) && fsync(fd) == 0;
    close(fd);
    if (!written || rename(temporary.c_str(), path) != 0) {
        unlink(temporary.c_str());
        return false;
    }
    return true;
}

/// Reads the cache's index at `path` into `detector` and `predictor` (which keeps the file open for the leaves);
/// false when it is missing, made from another model file, cut short, damaged or inconsistent.
bool read_cache(const char *path, const model_identity &id, dlib::frontal_face_detector &detector,
                cached_predictor &predictor) {
    const int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    struct stat st;
    const uint64_t size = fstat(fd, &st) == 0 && st.st_size > 0 ? static_cast<uint64_t>(st.st_size) : 0;
    const size_t fixed = sizeof cache_magic + sizeof(model_identity) + 6 * sizeof(uint64_t);
    std::string head(fixed, '\0');
    bool ok = size > fixed && read_all_at(fd, &head[0], fixed, 0);
    byte_source h(head);
    char magic[sizeof cache_magic];
    h.get_raw(magic, sizeof magic);
    const model_identity stored = h.get<model_identity>();
    uint64_t counts[5];
    for (auto &n : counts) n = h.get<uint64_t>();
    const uint64_t detector_size = h.get<uint64_t>();
    ok = ok && h.ok && std::memcmp(magic, cache_magic, sizeof magic) == 0 && stored.size == id.size &&
         stored.mtime_sec == id.mtime_sec && stored.mtime_nsec == id.mtime_nsec;
    for (uint64_t n : counts) ok = ok && n > 0 && n < max_count;
    ok = ok && detector_size < size;
    if (!ok) { close(fd); return false; }
    const uint64_t cascades = counts[0], trees = counts[1], splits = counts[2], parts = counts[3], features = counts[4];
    const uint64_t index_size = fixed + detector_size + 2 * parts * 4 + cascades * features * 12 +
                                cascades * trees * splits * 12 + 8;
    const uint64_t leaf_record = 2 * parts * 4 + 8;
    if (size != index_size + cascades * trees * (splits + 1) * leaf_record) { close(fd); return false; }

    std::string index(static_cast<size_t>(index_size), '\0');
    if (!read_all_at(fd, &index[0], index.size(), 0)) { close(fd); return false; }
    checksum sum;
    sum.add(index.data(), index.size() - 8);
    uint64_t stored_sum;
    std::memcpy(&stored_sum, index.data() + index.size() - 8, sizeof stored_sum);
    if (stored_sum != sum.hash) { close(fd); return false; }

    byte_source r(index);
    r.position = fixed;
    std::string detector_bytes(static_cast<size_t>(detector_size), '\0');
    r.get_raw(&detector_bytes[0], detector_bytes.size());
    predictor.cascades = cascades;
    predictor.trees = trees;
    predictor.splits_per_tree = splits;
    predictor.parts = parts;
    predictor.features = features;
    predictor.initial_shape.set_size(static_cast<long>(2 * parts));
    r.get_raw(&predictor.initial_shape(0), sizeof(float) * 2 * parts);
    predictor.anchor_idx.assign(cascades, std::vector<unsigned long>(features));
    for (auto &cascade : predictor.anchor_idx) {
        for (auto &a : cascade) {
            a = r.get<uint32_t>();
            if (a >= parts) ok = false;
        }
    }
    predictor.deltas.assign(cascades, std::vector<dlib::vector<float, 2>>(features));
    for (auto &cascade : predictor.deltas) {
        for (auto &d : cascade) {
            d.x() = r.get<float>();
            d.y() = r.get<float>();
        }
    }
    predictor.splits.resize(cascades * trees * splits);
    for (auto &split : predictor.splits) {
        split.idx1 = r.get<uint32_t>();
        split.idx2 = r.get<uint32_t>();
        split.thresh = r.get<float>();
        if (split.idx1 >= features || split.idx2 >= features) ok = false;
    }
    if (!ok || !r.ok || r.position != index.size() - 8) { close(fd); return false; }
    std::istringstream plain(detector_bytes);
    dlib::deserialize(detector, plain);
    predictor.leaves_offset = index_size;
    predictor.fd = fd;
    return true;
}

}  // namespace

struct cairn_landmarker {
    dlib::frontal_face_detector detector;
    /// The predictor read from the cache (its leaves stay in the file), when the cache was read ...
    cached_predictor cached;
    /// ... else dlib's own, loaded from the model file.
    dlib::shape_predictor predictor;
    std::string model_path, cache_path;
    model_identity id{};
    bool identified = false;
    std::mutex lock;  // object_detector::operator() is not const: one detection at a time per handle
};

static void cairn_set_error(char *err, size_t errlen, const char *message) {
    if (err == nullptr || errlen == 0) return;
    std::snprintf(err, errlen, "%s", message);
}

/// Loads the model file the slow way into `handle` (the detector too, unless `keep_detector`) and writes the
/// cache (best effort). Throws dlib's errors; false when the model has not 68 points.
static bool load_model(cairn_landmarker *handle, bool keep_detector) {
    handle->cached.close_file();
    if (!keep_detector) handle->detector = dlib::get_frontal_face_detector();
    dlib::deserialize(handle->model_path) >> handle->predictor;
    if (handle->predictor.num_parts() != CAIRN_LANDMARK_COUNT) return false;
    if (handle->identified && !handle->cache_path.empty()) {
        try {
            write_cache(handle->cache_path.c_str(), handle->id, handle->detector, handle->predictor);  // best effort
        } catch (...) {
        }
    }
    return true;
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
        handle = new cairn_landmarker();
        handle->model_path = model_path;
        if (cache_path != nullptr) handle->cache_path = cache_path;
        handle->identified = identify(model_path, handle->id);
        if (handle->identified && cache_path != nullptr) {
            bool cached = false;
            try {
                cached = read_cache(cache_path, handle->id, handle->detector, handle->cached) &&
                         handle->cached.parts == CAIRN_LANDMARK_COUNT;
            } catch (...) {
                cached = false;  // a damaged cache: the model itself is loaded below
            }
            if (cached) {
                if (used_cache != nullptr) *used_cache = 1;
                return handle;
            }
            handle->cached.close_file();
        }
        if (!load_model(handle, false)) {
            delete handle;
            cairn_set_error(err, errlen, "the model does not have 68 landmark points");
            return nullptr;
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

extern "C" int cairn_landmarker_uses_cache(cairn_landmarker *handle) {
    if (handle == nullptr) return 0;
    std::lock_guard<std::mutex> guard(handle->lock);
    return handle->cached.open() ? 1 : 0;
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
            dlib::full_object_detection shape;
            if (!handle->cached.open() || !handle->cached.predict(image, box, shape)) {
                // A leaf that cannot be read or fails its checksum: the cache is not trusted again; the model is
                // loaded (its detector is kept: the cache's index, which held it, passed its checksum).
                if (handle->cached.open() && !load_model(handle, true)) {
                    cairn_set_error(err, errlen, "the model does not have 68 landmark points");
                    return -1;
                }
                shape = handle->predictor(image, box);
            }
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
    delete handle;
}
