// C API over dlib's frontal face detector + 68-point shape predictor. Compiled with -O3 (Package.swift):
// dlib's templates are ~57x slower unoptimised (PLATFORM.md).
#include "dlib_shim.h"

#include <dlib/image_processing.h>
#include <dlib/image_processing/frontal_face_detector.h>
#include <dlib/image_transforms.h>
#include <dlib/serialize.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <mutex>
#include <string>
#include <vector>

struct cairn_landmarker {
    dlib::frontal_face_detector detector;
    dlib::shape_predictor predictor;
    std::mutex lock;  // object_detector::operator() is not const: one detection at a time per handle
};

static void cairn_set_error(char *err, size_t errlen, const char *message) {
    if (err == nullptr || errlen == 0) return;
    std::snprintf(err, errlen, "%s", message);
}

extern "C" cairn_landmarker *cairn_landmarker_open(const char *model_path, char *err, size_t errlen) {
    if (model_path == nullptr) {
        cairn_set_error(err, errlen, "no model path given");
        return nullptr;
    }
    cairn_landmarker *handle = nullptr;
    try {
        handle = new cairn_landmarker();
        handle->detector = dlib::get_frontal_face_detector();
        dlib::deserialize(model_path) >> handle->predictor;
        if (handle->predictor.num_parts() != CAIRN_LANDMARK_COUNT) {
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
    delete handle;
}
