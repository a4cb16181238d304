// Landmarks: placeholder until the module lands.
